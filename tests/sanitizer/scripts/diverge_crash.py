"""A regression whose learning-rate warm-up climbs to a rate too high for it: the loss
falls for a few steps, then climbs far above its early level and blows up; the script
crashes on the blown-up values before the sanitizer's own judgement of the run's end.
`check`: the loop's own guard raises at the first non-finite loss. `index`: a loss
histogram indexed by the loss's order of magnitude runs past its last bin (IndexError).
`healthy`: the warm-up stops at a rate that trains; neither crash happens.
Expected: the crash first, said to follow the divergence (its root, at the step the
climb began); the healthy twin reports nothing."""
import math
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "check"
peak = 0.05 if mode == "healthy" else 1.6
torch.manual_seed(0)
model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.0)
weights = torch.randn(8, 1)
histogram = [0] * 12  # losses by order of magnitude, 1e-6 .. 1e5

for step in range(1, 121):
    for group in opt.param_groups:
        group["lr"] = peak * min(1.0, step / 30)
    x = torch.randn(64, 8)
    loss = nn.functional.mse_loss(model(x), x @ weights)
    value = loss.item()
    if mode != "index" and not math.isfinite(value):
        raise RuntimeError(f"loss is {value} at step {step}: stopping")
    if mode == "index":
        histogram[max(0, int(math.log10(value)) + 6)] += 1
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(step, f"{value:.6g}", flush=True)
print("done", step)
