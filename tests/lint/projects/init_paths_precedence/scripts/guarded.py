import torch

import _paths_when_run  # noqa: F401  (imported, its `__main__` block does not run: lib/ is not added)
from core.function import train_one_epoch


def main(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    for epoch in range(epochs):
        scheduler.step()
        train_one_epoch(model, loader, optimizer)
