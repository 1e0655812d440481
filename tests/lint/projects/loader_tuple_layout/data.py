import functools

from torch.utils.data import DataLoader

from hub import pinned


def make_loaders(args):
    train_loader = DataLoader(args.train_set, batch_size=args.batch_size, shuffle=True)
    val_loader = DataLoader(args.val_set, batch_size=args.batch_size, pin_memory=True)
    return train_loader, val_loader


@functools.lru_cache(maxsize=None)
def cached_loader(path):
    return DataLoader(path, batch_size=32)


@pinned
def shared_loader(path):
    """The decorator, of a package out of sight, may pin what it returns."""
    return DataLoader(path, batch_size=32)
