"""An optimizer that wraps another (a Lookahead: k fast steps, then one back towards
slow weights) and steps it inside its own step(): one step each time. A NaN batch
enters at the third step.

    retry    the inner optimizer raises on the second step once (a transient
             failure the loop catches and retries): the count goes on unchanged
    subclass no wrapper: an optimizer class whose step() calls its base class's,
             both hooked by torch (an SGD was built before)
"""
import sys

import torch
from torch import nn


class Lookahead(torch.optim.Optimizer):
    def __init__(self, base, k=5, alpha=0.5):
        self.base, self.k, self.alpha, self.count = base, k, alpha, 0
        super().__init__(base.param_groups, {})
        self.slow = [[p.detach().clone() for p in group["params"]] for group in base.param_groups]

    @torch.no_grad()
    def step(self, closure=None):
        loss = self.base.step(closure)
        self.count += 1
        if self.count % self.k == 0:
            for group, slow in zip(self.base.param_groups, self.slow):
                for p, s in zip(group["params"], slow):
                    s.add_(p - s, alpha=self.alpha)
                    p.copy_(s)
        return loss


class Flaky(torch.optim.AdamW):
    failures = 1 if sys.argv[1:] == ["retry"] else 0

    def step(self, closure=None):
        if self.failures and self.state:
            Flaky.failures -= 1
            raise RuntimeError("transient failure")
        return super().step(closure)


class Logged(torch.optim.SGD):
    def step(self, closure=None):
        return super().step(closure)


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
if sys.argv[1:] == ["subclass"]:
    torch.optim.SGD(nn.Linear(2, 2).parameters(), lr=0.1)  # torch hooks SGD.step itself now
    optimizer = Logged(model.parameters(), lr=1e-3)
else:
    optimizer = Lookahead(Flaky(model.parameters(), lr=1e-3))
for step in range(1, 9):
    x = torch.randn(32, 8)
    if step == 3:
        x[0, 0] = float("nan")
    loss = model(x).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    try:
        optimizer.step()
    except RuntimeError:
        optimizer.step()
    print(f"step {step} loss {loss.item():.6f}")
