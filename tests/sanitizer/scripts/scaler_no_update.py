"""A GradScaler loop that never calls `scaler.update()`, with a loss scale so large that
the first step's scaled gradients overflow: the scaler skips that step, and torch
refuses the second (`unscale_() is being called after step()`). Expected: the crash
is blamed on the missing update (TL104), and the overflow the scaler skips is no
problem of its own."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 5))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 24)
for step in range(20):
    x = torch.randn(64, 32)
    y = x[:, :5].argmax(1)
    with torch.autocast("cpu", dtype=torch.float16):
        loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    print(step, f"{loss.item():.6f}")
