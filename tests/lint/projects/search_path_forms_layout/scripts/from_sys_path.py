import os
import sys
from sys import path

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "lib"))
# a folder the environment names goes first, through sys.path by another name: it may hold core/
path[:0] = [os.environ["EXTRA_LIB"]]

from core.function import train_one_epoch  # noqa: E402


def main(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    for epoch in range(epochs):
        scheduler.step()
        train_one_epoch(model, loader, optimizer)
