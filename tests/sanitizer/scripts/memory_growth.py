"""Keeps a 4 MiB tensor per step in a history list. Expected: memory_growth (no tensor_leak:
the tensors carry no graph)."""
import sys

import torch
from torch import nn

healthy = "healthy" in sys.argv[1:]
torch.manual_seed(0)
model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
history = []
for step in range(1, 81):
    x, y = torch.randn(8, 8), torch.randn(8, 1)
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if not healthy:
        history.append(torch.full((1024, 1024), float(step)))
