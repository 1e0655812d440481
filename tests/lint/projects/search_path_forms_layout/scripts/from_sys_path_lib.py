import os
from sys import path

import torch

# sys.path by another name: lib/ goes first
path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from core.function import train_one_epoch  # noqa: E402


def main(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    for epoch in range(epochs):
        scheduler.step()  # expect: TL404
        train_one_epoch(model, loader, optimizer)
