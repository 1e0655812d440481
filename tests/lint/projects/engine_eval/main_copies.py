"""Helpers that rebind the model they are given: to a deep copy (the caller's
model keeps its mode), or to the same model moved to the device (it does not)."""
import torch

from engine import evaluate_on, perturb


def adversarial(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.train()
    for epoch in range(epochs):
        for step, (images, targets) in enumerate(loader):
            if step % 2 == 0:
                images = perturb(model, images)
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(images), targets).backward()
            optimizer.step()


def moved(model, loader, val_loader, device, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.train()
    for epoch in range(epochs):
        for images, targets in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(images), targets).backward()
            optimizer.step()
        evaluate_on(model, val_loader, device)  # expect: TL405
