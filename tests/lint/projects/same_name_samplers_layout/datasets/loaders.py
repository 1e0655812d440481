"""Builds the training loader on a shuffling DistributedSampler and returns the
loader alone: its callers reach the sampler as `loader.sampler`."""
from torch.utils.data import DataLoader, DistributedSampler


def build_train_loader(dataset, batch_size=8):
    sampler = DistributedSampler(dataset)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)
