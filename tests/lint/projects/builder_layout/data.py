"""Loader builders of the project: they return the loader, the caller trains on it."""
from torch.utils.data import DataLoader, DistributedSampler


def build_train_loader(dataset, batch_size):
    sampler = DistributedSampler(dataset)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)


def build_loader(dataset, batch_size, shuffle):
    sampler = DistributedSampler(dataset, shuffle=shuffle)  # the caller decides
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)


def build_eval_loader(dataset):
    return DataLoader(dataset, sampler=DistributedSampler(dataset, shuffle=False))


def build_loaders(train_set, val_set):
    return build_train_loader(train_set, 64), build_eval_loader(val_set)


def build_train_val(train_set, val_set):
    train_loader = DataLoader(train_set, sampler=DistributedSampler(train_set))
    val_loader = DataLoader(val_set, sampler=DistributedSampler(val_set, shuffle=False))
    return train_loader, val_loader


def build_reusing_name(train_ds, valid_ds):
    data_sampler = DistributedSampler(train_ds, drop_last=True)
    train_loader = DataLoader(train_ds, batch_size=32, sampler=data_sampler)
    # the same name taken again for the evaluation sampler, which does not shuffle
    data_sampler = DistributedSampler(valid_ds, shuffle=False)
    valid_loader = DataLoader(valid_ds, batch_size=32, sampler=data_sampler)
    return train_loader, valid_loader


def build_reassigned(train_ds):
    sampler = DistributedSampler(train_ds)
    sampler = DistributedSampler(train_ds, shuffle=False)  # replaced before the loader takes it
    return DataLoader(train_ds, batch_size=32, sampler=sampler)


def build_maybe_ordered(train_ds, ordered):
    sampler = DistributedSampler(train_ds)
    if ordered:
        sampler = DistributedSampler(train_ds, shuffle=False)  # either may reach the loader
    return DataLoader(train_ds, batch_size=32, sampler=sampler)
