"""A small regressor fitted by LBFGS (the closure called up to 5 times a step): with
`--fault N` the batch of step N holds a NaN. Its gradients are NaN, LBFGS's update
writes NaN into every weight, and its later closure calls of step N run on them (with
the NaN batch again). Expected: nonfinite_input at step N, and the first module whose
output the broken weights make NaN, `body.0`, at step N + 1, the next step's own
forward, as in a loop without a closure. Without `--fault`: the healthy twin."""
import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--fault", type=int, default=0, help="the step whose batch gets a NaN (0: none)")
args = parser.parse_args()
torch.manual_seed(0)
model = nn.Sequential()
model.body = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh())
model.head = nn.Linear(16, 1)
optimizer = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=5, history_size=4)
for step in range(1, 7):
    x = torch.randn(32, 5)
    y = x[:, :1] * 2 - x[:, 1:2] + 0.1 * torch.randn(32, 1)
    if step == args.fault:
        x[7, 2] = float("nan")

    def closure() -> torch.Tensor:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        return loss

    loss = optimizer.step(closure)
    print(f"step {step} loss {loss.item():.8g}")
