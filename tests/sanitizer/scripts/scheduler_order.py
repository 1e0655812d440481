"""A warm-up schedule stepped before the optimizer in each iteration (or, with
`healthy`, after it). Expected: scheduler_before_optimizer at step 1 only when
the order is wrong, and the lint finding TL404 at the early `scheduler.step()`."""
import sys

import torch
from torch import nn

healthy = "healthy" in sys.argv[1:]
torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
warmup = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / 5))
for step in range(8):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    if not healthy:
        warmup.step()  # before the optimizer: TL404
    optimizer.step()
    if healthy:
        warmup.step()
