import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
# lib_dry/ first: its train_one_epoch steps nothing
sys.path[:0] = [os.path.join(here, "..", "lib_dry"), os.path.join(here, "..", "lib")]

from core.function import train_one_epoch  # noqa: E402


def main(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    for epoch in range(epochs):
        scheduler.step()
        train_one_epoch(model, loader, optimizer)
