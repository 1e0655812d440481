"""From step 6 the gate's projection outputs exact zeros: sqrt(x**2) is finite forward but
its gradient is 0 * inf = NaN. Expected: nonfinite_grad at step 6 on gate.proj, no
non-finite activation at step 6."""
import sys

import torch
from torch import nn

healthy = "healthy" in sys.argv[1:]
torch.manual_seed(0)


class Gate(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(16, 16)

    def forward(self, x):
        return torch.sqrt(self.proj(x).pow(2) + (1e-6 if healthy else 0.0))


model = nn.Sequential()
model.add_module("embed", nn.Linear(4, 16))
model.add_module("gate", Gate())
model.add_module("out", nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(1, 11):
    if step == 6 and not healthy:
        with torch.no_grad():
            model.gate.proj.weight.zero_()
            model.gate.proj.bias.zero_()
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
