from torch.utils.data import DataLoader

from engine import fit, run_epoch


def train_stage(model, loader, device):
    fit(model, loader, device, epochs=3)


def finetune(model, loader, device):
    """May pin the loader before it is drawn from."""
    loader.pin_memory = True
    fit(model, loader, device, 1)


def warmup(model, loader, device, rounds):
    if rounds:
        warmup(model, loader, device, rounds - 1)
    else:
        run_epoch(model, loader, device)


def evaluate_other(model, loader, dataset, device):
    """Hands on a loader of its own, pinned, not the one it is given."""
    print(len(loader))
    run_epoch(model, DataLoader(dataset, batch_size=8, pin_memory=True), device)
