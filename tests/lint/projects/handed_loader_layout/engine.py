"""Epoch loops that the scripts import and hand their loaders to."""
import torch


def train_one_epoch(model, optimizer, loader, device):
    for step, (images, targets) in enumerate(loader):
        images = images.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(images), targets).backward()
        optimizer.step()


def evaluate(model, loader, device):
    # blocking copies: pinning would change nothing
    with torch.no_grad():
        for images, targets in loader:
            model(images.to(device))


def train_prepared(accelerator, model, loader, device):
    # the loop draws from what `prepare()` returns, not from the loader handed in
    loader = accelerator.prepare(loader)
    for images, _ in loader:
        model(images.to(device, non_blocking=True))


def train_pinning(model, loader, device):
    loader.pin_memory = True
    for images, _ in loader:
        model(images.to(device, non_blocking=True))
