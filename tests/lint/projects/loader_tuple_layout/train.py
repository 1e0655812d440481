from builders import loaders, pinned_loaders
from data import cached_loader, shared_loader


def main(args, model, device):
    train_loader, val_loader = loaders(args)
    for x, y in train_loader:
        model(x.to(device, non_blocking=True))  # expect: TL502
    for x, y in val_loader:
        model(x.to(device, non_blocking=True))
    first, _ = pinned_loaders(args)
    for x, y in first:
        model(x.to(device, non_blocking=True))
    for x in cached_loader(args.extra):
        model(x.to(device, non_blocking=True))  # expect: TL502
    for x in shared_loader(args.extra):
        model(x.to(device, non_blocking=True))
