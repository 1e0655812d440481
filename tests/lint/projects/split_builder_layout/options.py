"""A DataLoader's keyword arguments, its DistributedSampler among them."""
from torch.utils.data import DistributedSampler


def loader_options(dataset, split):
    return {"sampler": DistributedSampler(dataset, shuffle=split == "train"), "batch_size": 8}
