import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "lib"))
# a loop that leaves sys.path alone: lib/ stays first
for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(name, "1")

from core.function import train_one_epoch  # noqa: E402


def main(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    for epoch in range(epochs):
        scheduler.step()  # expect: TL404
        train_one_epoch(model, loader, optimizer)
