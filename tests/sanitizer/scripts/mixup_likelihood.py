"""Heteroscedastic regression trained on the Gaussian negative log-likelihood of its
targets, with mixup: each batch is blended with a shuffled copy of itself by a weight
drawn from `Beta(0.4, 0.4).sample()`. The sample is a mixing weight and the
log-probability is of the data: no policy gradient. Expected: nothing to report.

`--corrupt-step N`: the targets of batch N are scaled by 1000 (a corrupt batch);
expected loss_spike and grad_spike at step N."""
import argparse

import torch
from torch import nn
from torch.distributions import Beta, Normal

parser = argparse.ArgumentParser()
parser.add_argument("--corrupt-step", type=int, default=-1)
args = parser.parse_args()
torch.manual_seed(0)
body = nn.Sequential(nn.Linear(3, 32), nn.ReLU(), nn.Linear(32, 2))
optimizer = torch.optim.Adam(body.parameters(), lr=3e-3)
mixing = Beta(0.4, 0.4)
for step in range(1, 81):
    x = torch.randn(64, 3)
    y = 3 * x[:, :1] + 0.3 * torch.randn(64, 1)
    if step == args.corrupt_step:
        y = y * 1000
    weight, partner = mixing.sample(), torch.randperm(64)
    x, y = weight * x + (1 - weight) * x[partner], weight * y + (1 - weight) * y[partner]
    out = body(x)
    mean, scale = out[:, :1], out[:, 1:].clamp(-5, 3).exp()
    loss = -Normal(mean, scale).log_prob(y).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"loss {loss.item():.4f}")
