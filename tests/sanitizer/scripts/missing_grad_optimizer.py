"""A hand-written optimizer that takes a missing gradient as zero (torch's own skip the
parameter) and steps by the normalised gradient, `p -= lr * g / max(||g||, floor)`.
The model has two heads trained in turns: `aux` runs on even steps only, so on odd
steps its parameters have no gradient (`zero_grad()` sets them to None) and the
optimizer still updates them, from a zero gradient.

    zero      floor 0: at step 1 the update writes `0 / 0`, NaN, into aux's weights.
              Expected: nonfinite_param at step 1 on aux.weight, made by the
              optimizer's step() (origin optimizer_step): the weight had no gradient
              but was finite as that step() began.
    written   floor 1e-12 (a zero gradient moves nothing); after step 2 the script
              writes a NaN into aux.weight through `.data`, and step 3's update, with
              no gradient for it, finds it NaN. Expected: nonfinite_param at step 2,
              written by code outside the optimizer (origin outside_optimizer).
    healthy   floor 1e-12 and no write: nothing is reported, and the losses printed are
              those of a run without the sanitizer.
"""
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "zero"
torch.manual_seed(0)


class NormalizedSGD(torch.optim.Optimizer):
    def __init__(self, params, lr: float = 0.01, floor: float = 0.0) -> None:
        super().__init__(params, {"lr": lr, "floor": floor})

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                grad = p.grad if p.grad is not None else torch.zeros_like(p)
                p.sub_(group["lr"] * grad / grad.norm().clamp_min(group["floor"]))


class TwoTasks(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(5, 12)
        self.main = nn.Linear(12, 1)
        self.aux = nn.Linear(12, 4)

    def forward(self, x, task):
        features = torch.tanh(self.body(x))
        return self.aux(features) if task == "aux" else self.main(features)


model = TwoTasks()
opt = NormalizedSGD(model.parameters(), lr=0.01, floor=0.0 if mode == "zero" else 1e-12)
x, y, labels = torch.randn(48, 5), torch.randn(48, 1), torch.randint(0, 4, (48,))
for step in range(1, 7):
    task = "main" if step % 2 else "aux"
    out = model(x, task)
    loss = nn.functional.mse_loss(out, y) if task == "main" else nn.functional.cross_entropy(out, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step == 2 and mode == "written":
        model.aux.weight.data[1, 3] = float("nan")
    print(f"{step} {loss.item():.17g}")
print("finished")
