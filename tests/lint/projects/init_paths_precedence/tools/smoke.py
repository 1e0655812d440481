import os
import sys

import torch

# appended: the script's own folder comes first, so tools/core (no optimizer step) is imported
sys.path.append(os.path.join(os.path.dirname(__file__), "..", "lib"))

from core.function import train_one_epoch  # noqa: E402


def main(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    for epoch in range(epochs):
        scheduler.step()
        train_one_epoch(model, loader, optimizer)
