"""An engine whose training function forgets to put the model back in train mode."""
import copy

import torch


def train_one_epoch(model, loader, optimizer, criterion):
    for images, targets in loader:
        loss = criterion(model(images), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    return sum(model(images).argmax(1).eq(targets).sum().item() for images, targets in loader)


@torch.no_grad()
def evaluate_and_restore(model, loader):
    model.eval()
    score = sum(model(images).sum().item() for images, _ in loader)
    model.train()
    return score


def train_one_epoch_in_train_mode(model, loader, optimizer, criterion):
    model.train()
    train_one_epoch(model, loader, optimizer, criterion)


def train_with_periodic_validation(model, loader, optimizer, criterion):
    model.train()
    for step, (images, targets) in enumerate(loader):
        loss = criterion(model(images), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            model.eval()
            evaluate(model, loader)
            model.train()


def perturb(model, images):
    """An adversarial example from a private copy (layumi's ODFA): the caller's model keeps its mode."""
    model = copy.deepcopy(model)
    model.eval()
    images = images.clone().requires_grad_(True)
    model(images).sum().backward()
    return (images + 0.01 * images.grad.sign()).detach()


@torch.no_grad()
def evaluate_on(model, loader, device):
    """The model moved to the device is the one it was given."""
    model = model.to(device)
    model.eval()
    return sum(model(images).sum().item() for images, _ in loader)
