"""A regression on noisy targets in batches of two (or 256) that crashes on its third step: the
checkpoint it saves goes to a run folder nobody created (torch.save raises RuntimeError).
`noise`: at lr=0.05 the third batch's loss is 22 times the larger of the first two, as
batches of two give now and then; `diverged`: at lr=100 the loss is 22,000 times its
first at step 2 and 40 million at step 3. `large`: batches of 256 at lr=1.5, a step
past what the regression's curvature allows: the loss grows about 4.5 times a step, 21
times its first at step 3 (4.6 times the larger of the two before it). Expected: the
crash alone for `noise`; for `diverged`, the crash said to follow the divergence at step
2; for `large`, at step 3."""
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "noise"
lr = {"noise": 0.05, "diverged": 100.0, "large": 1.5}[mode]
batch = 256 if mode == "large" else 2
torch.manual_seed(38)
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=lr)
weights = torch.randn(4, 1)

for step in range(1, 101):
    x = torch.randn(batch, 4)
    y = x @ weights + 0.5 * torch.randn(batch, 1)
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.6g}", flush=True)
    if step % 3 == 0:
        torch.save(model.state_dict(), f"runs/tiny_batch/step{step}.pt")
