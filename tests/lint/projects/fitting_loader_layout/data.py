"""A builder that tries batch sizes until the first batch fits in memory, each try
on a shuffling DistributedSampler; should none fit, it falls back to one sample at
a time, in the same order every epoch. The first return hands a shuffling sampler
over: main.py never sets its epoch, epochs.py does."""
from torch.utils.data import DataLoader, DistributedSampler


def first_batch_fits(loader):
    try:
        next(iter(loader))
    except RuntimeError:
        return False
    return True


def fitting_loader(dataset, sizes):
    for size in sizes:
        sampler = DistributedSampler(dataset)
        loader = DataLoader(dataset, batch_size=size, sampler=sampler)
        if first_batch_fits(loader):
            return loader
        sampler = DistributedSampler(dataset, shuffle=False)
    return DataLoader(dataset, batch_size=1, sampler=sampler)
