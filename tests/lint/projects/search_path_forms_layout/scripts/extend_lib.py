import os
import sys

import torch

here = os.path.dirname(os.path.abspath(__file__))
# appended: lib/ is looked in after the usual folders, none of which holds core/
sys.path.extend([os.path.join(here, "..", "lib")])

from core.function import train_one_epoch  # noqa: E402


def main(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    for epoch in range(epochs):
        scheduler.step()  # expect: TL404
        train_one_epoch(model, loader, optimizer)
