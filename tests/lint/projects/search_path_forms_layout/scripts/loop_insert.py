import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "lib"))
# folders the environment names go first, one by one: any may hold core/
for extra in os.environ["EXTRA_LIBS"].split(":"):
    sys.path.insert(0, extra)

from core.function import train_one_epoch  # noqa: E402


def main(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    for epoch in range(epochs):
        scheduler.step()
        train_one_epoch(model, loader, optimizer)
