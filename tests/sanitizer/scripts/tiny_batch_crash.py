"""A regression on noisy targets in batches of two that crashes on its third step: the
checkpoint it saves goes to a run folder nobody created (torch.save raises RuntimeError).
`noise`: at lr=0.05 the third batch's loss is 22 times the larger of the first two, as
batches of two give now and then; `diverged`: at lr=100 the loss is 22,000 times its
first at step 2 and 40 million at step 3. Expected: the crash alone for `noise`; for
`diverged`, the crash said to follow the divergence at step 2."""
import sys

import torch
from torch import nn

lr = 100.0 if sys.argv[1:] == ["diverged"] else 0.05
torch.manual_seed(38)
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=lr)
weights = torch.randn(4, 1)

for step in range(1, 101):
    x = torch.randn(2, 4)
    y = x @ weights + 0.5 * torch.randn(2, 1)
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.6g}", flush=True)
    if step % 3 == 0:
        torch.save(model.state_dict(), f"runs/tiny_batch/step{step}.pt")
