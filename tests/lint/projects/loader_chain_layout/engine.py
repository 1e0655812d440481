def run_epoch(model, loader, device):
    for x, y in loader:
        model(x.to(device, non_blocking=True))


def fit(model, loader, device, epochs):
    for _ in range(epochs):
        run_epoch(model, loader, device)


def count_batches(loader):
    """Hands the loader on to nothing that copies its batches."""
    return len(loader)


def fit_copied(model, loader, device):
    """Draws from a list of the batches, which it makes itself: not the loader handed."""
    loader = list(loader)
    run_epoch(model, loader, device)
