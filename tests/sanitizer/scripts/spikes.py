"""Regression whose step-40 batch has targets scaled by 1000 (a corrupt batch).
Expected: loss_spike and grad_spike at step 40."""
import sys

import torch
from torch import nn

healthy = "healthy" in sys.argv[1:]
torch.manual_seed(0)
true_w = torch.randn(10, 1)
model = nn.Sequential(nn.Linear(10, 32), nn.Tanh(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(1, 61):
    x = torch.randn(16, 10)
    y = x @ true_w + 0.1 * torch.randn(16, 1)
    if step == 40 and not healthy:
        y = y * 1000
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1e9)
    opt.step()
