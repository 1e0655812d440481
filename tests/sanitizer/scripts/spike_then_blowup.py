"""A regression whose batch of step 40 holds four rows with targets 100 times too large
(a unit mix-up in one data file): the loss spikes and is back at once. `blowup`: from
step 44 a resumed schedule sets the learning rate to 1000, and the loss blows up to Inf
and NaN within a few steps. `spike`: the learning rate stays. `shard`: the data file
goes on breaking: step 42's batch holds rows with targets 1000 times too large, step
43's a target stored as NaN; the loss is back only at step 41 in between. Expected
(`blowup`): the divergence, with the NaN it ran into, is the first problem; the spike,
which the loss had come back from, is listed after it, not as what led up to it.
`spike`: the spike alone, saying when the loss came back. `shard`: the NaN target,
with the spike as what led up to it (one loss back between the two is no coming back)."""
import math
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "blowup"
torch.manual_seed(0)
model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
weights = torch.randn(8, 1)

for step in range(1, 81):
    if step == 44 and mode == "blowup":
        for group in opt.param_groups:
            group["lr"] = 1000.0
    x = torch.randn(32, 8)
    y = x @ weights + 0.1 * torch.randn(32, 1)
    if step == 40 or (step == 42 and mode == "shard"):
        y[:4] *= 100 if step == 40 else 1000
    if step == 43 and mode == "shard":
        y[0] = math.nan  # a missing value the shard holds as NaN
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if not math.isfinite(loss.item()):
        print(f"step {step}: loss is {loss.item()}, stopping")
        break
    if step % 10 == 0:
        print(step, f"{loss.item():.6g}", flush=True)
