"""A model under torch.compile, when the compiler works on this machine."""
import sys

import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
try:
    compiled = torch.compile(model)
    compiled(torch.randn(2, 4))
except Exception as exc:  # no compiler toolchain: say so and stop
    print(f"compile unavailable: {type(exc).__name__}")
    sys.exit(0)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for _ in range(4):
    opt.zero_grad()
    compiled(torch.randn(8, 4)).pow(2).mean().backward()
    opt.step()
print("compiled ok")
