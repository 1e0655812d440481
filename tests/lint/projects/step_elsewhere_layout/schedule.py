"""Epoch loops whose optimizer steps in engine.py (d2l's kaggle-cifar10): the
scheduler steps at the end of each epoch. `train()` runs twice, each time with
a scheduler of its own: the first run's last scheduler step skips nothing of
the second's schedule."""
import torch

from engine import train_batch


def train(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 4, 0.9)
    for epoch in range(epochs):
        for x, y in loader:
            train_batch(model, optimizer, x, y)
        scheduler.step()


def train_stepping_first(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 4, 0.9)
    for epoch in range(epochs):
        scheduler.step()  # expect: TL404
        for x, y in loader:
            train_batch(model, optimizer, x, y)


train(torch.nn.Linear(2, 1), [], 10)
train(torch.nn.Linear(2, 1), [], 10)
train_stepping_first(torch.nn.Linear(2, 1), [], 10)
