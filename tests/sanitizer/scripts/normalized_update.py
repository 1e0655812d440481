"""A regressor with an auxiliary head trained on every other step only, updated with
normalised gradient steps, `p -= lr * g / ||g||`. Gradients are zeroed in place
(`zero_grad(set_to_none=False)`), so on the steps that skip the auxiliary loss its
head's gradients are zero, and `0 / 0` writes NaN into its weights.

    hand        the update is the script's own (no torch.optim), in `torch.no_grad()`
    data        the same update written on `p.data`
    optimizer   the update is a torch.optim.Optimizer's step()
    outside     torch.optim.SGD steps; after step 2 the script rescales the auxiliary
                head by hand by its gradient's norm, outside the optimizer

Expected: nonfinite_param at step 2 on aux.weight, naming what wrote it (the script's
own update, the optimizer's step(), code outside the optimizer). `healthy` (after any
mode): the norm is floored at 1e-12, nothing is reported and the numbers are those of
a plain run.
"""
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "hand"
floor = 1e-12 if "healthy" in sys.argv[2:] else 0.0
torch.manual_seed(0)


class Regressor(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(6, 16)
        self.head = nn.Linear(16, 1)
        self.aux = nn.Linear(16, 1)

    def forward(self, x):
        h = torch.tanh(self.body(x))
        return self.head(h), self.aux(h)


class NormalizedSGD(torch.optim.Optimizer):
    def __init__(self, params, lr: float) -> None:
        super().__init__(params, {"lr": lr})

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                p -= group["lr"] * p.grad / (p.grad.norm() + floor)


def normalized(grad: torch.Tensor) -> torch.Tensor:
    return grad / (grad.norm() + floor)


model = Regressor()
lr = 0.05
opt = (NormalizedSGD(model.parameters(), lr) if mode == "optimizer"
       else torch.optim.SGD(model.parameters(), lr) if mode == "outside" else None)
x, y, z = torch.randn(64, 6), torch.randn(64, 1), torch.randn(64, 1)
for step in range(1, 9):
    prediction, auxiliary = model(x)
    loss = nn.functional.mse_loss(prediction, y)
    if step % 2:
        loss = loss + 0.1 * nn.functional.mse_loss(auxiliary, z)
    model.zero_grad(set_to_none=False)
    loss.backward()
    if opt is not None:
        opt.step()
    elif mode == "hand":
        with torch.no_grad():
            for p in model.parameters():
                p -= lr * normalized(p.grad)
    else:
        for p in model.parameters():
            p.data.add_(normalized(p.grad), alpha=-lr)
    if mode == "outside":
        with torch.no_grad():
            model.aux.weight.mul_(model.aux.weight.grad.norm() / (model.aux.weight.grad.norm() + floor))
print(f"loss {loss.item():.6f}")
