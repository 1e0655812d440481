"""Logging helpers: they read the loader, and never call set_epoch on it."""
history = []


def start_epoch(loader, epoch):
    history.append((epoch, len(loader)))
    print(f"epoch {epoch}: {len(loader)} batches")


def set_up_epoch(loader, epoch):
    loader.sampler.set_epoch(epoch)


def set_up_evaluation_epoch(loader, val_loader, epoch):
    val_loader.sampler.set_epoch(epoch)
    history.append((epoch, len(loader)))
