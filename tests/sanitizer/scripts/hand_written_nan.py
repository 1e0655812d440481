"""A weight written by hand in the training loop, after step 3's update: a NaN into
one entry of the head (`fill` writes Inf into the whole bias with `fill_` instead).
The update left every weight finite; the next forward is NaN from the head on.
Expected: nonfinite_param at step 3 on the written parameter, at the line that wrote
it (not the optimizer's step). `healthy`: the same lines write finite values (a
clamp of one entry, a bias reset to zero): nothing. `late`: the NaN is written after
the backward, before the update, so the update writes the weight again: the
parameter is reported at the update as before, since what the weight holds is the
update's work."""
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "nan"
torch.manual_seed(0)


class Regressor(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.head = nn.Linear(8, 1)

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))


model = Regressor()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x, y = torch.randn(64, 4), torch.randn(64, 1)
for step in range(1, 9):
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    if step == 3 and mode == "late":
        with torch.no_grad():
            model.head.weight[0, 2] = float("nan")
    opt.step()
    if step == 3 and mode in ("nan", "healthy"):
        with torch.no_grad():
            model.head.weight[0, 2] = float("nan") if mode == "nan" else 0.25
    if step == 3 and mode in ("fill", "healthy"):
        with torch.no_grad():
            model.head.bias.fill_(float("inf") if mode == "fill" else 0.0)
print(f"loss {loss.item():.4f}")
