"""Builders that return their loaders in a dict literal, keyed by split."""
from torch.utils.data import DataLoader, DistributedSampler


def make_loaders(train_set, val_set, batch_size):
    return {
        "train": DataLoader(train_set, batch_size, sampler=DistributedSampler(train_set)),
        "val": DataLoader(val_set, batch_size, sampler=DistributedSampler(val_set, shuffle=False)),
    }


def make_ordered_loaders(train_set, batch_size):
    # nothing shuffles here: a loop over these sees the same order by design
    return {"train": DataLoader(train_set, batch_size, sampler=DistributedSampler(train_set, shuffle=False))}


def get_loaders(train_set, val_set):
    return make_loaders(train_set, val_set, 32)


def get_ordered_loaders(train_set):
    return make_ordered_loaders(train_set, 32)
