"""A builder of the project: the loader it returns shuffles through a DistributedSampler."""
from torch.utils.data import DataLoader, DistributedSampler


def build_train_loader(dataset, batch_size):
    return DataLoader(dataset, batch_size=batch_size, sampler=DistributedSampler(dataset))
