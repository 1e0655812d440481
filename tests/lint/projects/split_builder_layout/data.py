"""Loader builders whose DistributedSampler shuffles only for the training split."""
from torch.utils.data import DataLoader, DistributedSampler


def build(dataset, mode):
    return DataLoader(dataset, batch_size=8, sampler=DistributedSampler(dataset, shuffle=mode == "train"), shuffle=False)


def build_split(dataset, split):
    sampler = DistributedSampler(dataset, shuffle=(split == "train"))
    loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    return loader


def distributed_sampler(dataset, shuffle):
    return DistributedSampler(dataset, shuffle=shuffle)
