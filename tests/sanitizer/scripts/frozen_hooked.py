"""A frozen first layer (no gradient) that a step hook of the script's divides by zero
during step 3's optimizer.step(): an optimizer post-step hook (`post`) or a global pre-step
hook (`global-pre`), which runs after the sanitizer's. The weights were finite
when step 3's update began; `look-alike`: the same hooks, writing nothing.
Expected: nonfinite_param at step 3 on 0.weight, not said to be Inf before the update."""
import sys

import torch
from torch import nn
from torch.optim import optimizer as optim_globals

mode = sys.argv[1] if len(sys.argv) > 1 else "post"
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 1))
model[0].requires_grad_(False)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
calls = 0


def hook(optimizer: torch.optim.Optimizer, args: tuple, kwargs: dict) -> None:
    global calls
    calls += 1
    if calls == 3 and mode != "look-alike":
        with torch.no_grad():
            model[0].weight.div_(0.0)


if mode in ("post", "look-alike"):
    opt.register_step_post_hook(hook)
else:
    optim_globals.register_optimizer_step_pre_hook(hook)
for step in range(1, 7):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"{step} {loss.item():.6f}")
