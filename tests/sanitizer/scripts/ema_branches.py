"""An EMA copy updated outside `torch.no_grad()` by a helper with several branches, as
EMA helpers choose between an average and a plain copy (`decay_type`). The update that
ran is the one the leak is located at, not the helper's first update line.

    copy       the helper's second branch runs (`ema_p.copy_(p)`). Expected: tensor_leak
               on `ema`, at the `copy_` line.
    average    its first branch runs (`ema_p.mul_(d).add_(p, ...)`). Expected: at that line.
    add        its third branch runs (`ema_p.add_(p - ema_p, ...)`), which ends in the same op
               as the first (`add_`). Expected: at the `add_` line of the third branch.
    same-op    another copy, `warm`, updated by another helper, whose two branches make the
               same ops (`mul_(...).add_(...)`, a warm-up decay and the decay): which one
               ran cannot be told. Expected: tensor_leak on `warm`, at that helper's `def`
               line, the helper named.
    healthy    (with any of those) the update under `torch.no_grad()`. Expected: nothing.
"""
import contextlib
import copy
import sys

import torch
from torch import nn

arguments = sys.argv[1:]
healthy = "healthy" in arguments
decay_type = next((kind for kind in ("copy", "add", "same-op") if kind in arguments), "a")
torch.manual_seed(0)


def update_ema(ema, model, decay, decay_type):
    with torch.no_grad() if healthy else contextlib.nullcontext():
        for ema_p, p in zip(ema.parameters(), model.parameters()):
            if decay_type == "a":
                ema_p.mul_(decay).add_(p, alpha=1 - decay)
            elif decay_type == "copy":
                ema_p.copy_(p)
            else:
                ema_p.add_(p - ema_p, alpha=1 - decay)


def update_ema_warm(ema, model, decay, step):
    with torch.no_grad() if healthy else contextlib.nullcontext():
        for ema_p, p in zip(ema.parameters(), model.parameters()):
            if step < 10:
                ema_p.mul_(decay ** 2).add_(p, alpha=1 - decay ** 2)
            else:
                ema_p.mul_(decay).add_(p, alpha=1 - decay)


model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
ema = copy.deepcopy(model).requires_grad_(False)
warm = copy.deepcopy(model).requires_grad_(False)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(30):
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if decay_type == "same-op":
        update_ema_warm(warm, model, 0.9, step)
    else:
        update_ema(ema, model, 0.9, decay_type)
with torch.no_grad():
    print(round(nn.functional.mse_loss(ema(x), y).item(), 4), round(nn.functional.mse_loss(warm(x), y).item(), 4))
