"""A callback meant to warm the learning rate up multiplies it by 10 after every step
from step 20 on: the loss climbs for a few steps, goes Inf, and the loop stops at the
first non-finite loss (as early stopping does). Expected: divergence at the first step
of the blow-up, mentioning the learning rate's rise, and the diagnosis rooted there
with the non-finite loss under it. `healthy`: the callback stops at 20. `outlier`: the
callback stops at 20 too, but one batch scaled 30 times at step 40 is followed by a
corrupt one (a NaN feature) at 41: the corrupt batch is the root, no divergence.
`tensor-lr`: the same blow-up with the learning rate held in a tensor (`lr=torch.tensor(...)`)."""
import math
import sys

import torch
from torch import nn

outlier = "outlier" in sys.argv[1:]
healthy = "healthy" in sys.argv[1:] or outlier
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 1))
lr = torch.tensor(1e-2) if "tensor-lr" in sys.argv[1:] else 1e-2
opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
weights = torch.randn(6, 1)


def warm_up(optimizer, step):
    if step >= 20 and not healthy:
        for group in optimizer.param_groups:
            group["lr"] *= 10  # meant: min(1, step / 20) * base_lr


for step in range(1, 61):
    x = torch.randn(32, 6)
    target = x @ weights
    if outlier and step == 40:
        x, target = 30 * x, 30 * target
    if outlier and step == 41:
        x[0, 0] = float("nan")
    loss = nn.functional.mse_loss(model(x), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    warm_up(opt, step)
    if not math.isfinite(loss.item()):
        break
print(step)
