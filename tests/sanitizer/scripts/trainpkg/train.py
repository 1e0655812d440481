"""Run with -m: relative imports and __spec__ must work as under `python -m`."""
import sys

import torch

from .helper import STEPS

model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(STEPS):
    model(torch.randn(2, 3)).sum().backward()
    opt.step()
print(__name__, __spec__.name, sys.argv[1:])
