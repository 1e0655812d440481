"""Builders of loaders that the training scripts import: some pin memory, some do not,
some leave it to the caller's settings."""
from torch.utils.data import DataLoader


def build_loader(dataset, batch_size):
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=4)


def get_loaders(train_set, val_set):
    train_loader = DataLoader(train_set, batch_size=32, shuffle=True, num_workers=4)
    val_loader = DataLoader(val_set, batch_size=64, num_workers=4, pin_memory=True)
    return train_loader, val_loader


def build_pinned_loader(dataset, batch_size):
    return DataLoader(dataset, batch_size=batch_size, num_workers=4, pin_memory=True)


def build_configured_loader(dataset, args):
    return DataLoader(dataset, batch_size=args.batch_size, num_workers=4, pin_memory=args.pin)


def build_loader_with(dataset, **loader_kwargs):
    return DataLoader(dataset, num_workers=4, **loader_kwargs)


def wrap_loader(loader):
    # hands back what it is given: another caller may give it a pinned loader
    return loader


def build_either(dataset, pin):
    if pin:
        return DataLoader(dataset, num_workers=4, pin_memory=True)
    return DataLoader(dataset, num_workers=4)


def build_val_loader(dataset):
    loader = DataLoader(dataset, batch_size=64, num_workers=2)
    return loader
