"""A classifier trained on a log-likelihood written by hand (`-log_softmax(logits).gather(1,
labels)`), which also draws a class from its own softmax with `torch.multinomial`, with
gradients on, and feeds it back as a feature of the next batch (scheduled sampling). The
draws are no actions and the log-probabilities are taken at the labels: no policy gradient.

`--corrupt-step N`: the features of batch N are scaled by 1000 (a corrupt batch);
expected loss_spike and grad_spike at step N."""
import argparse

import torch
from torch import nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--corrupt-step", type=int, default=-1)
args = parser.parse_args()
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(5, 32), nn.ReLU(), nn.Linear(32, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
drawn = torch.zeros(64, 1)
for step in range(1, 81):
    x = torch.randn(64, 4)
    labels = (x[:, :1] > 0).long()
    if step == args.corrupt_step:
        x = x * 1000
    logits = model(torch.cat([x, drawn], 1))
    drawn = torch.multinomial(F.softmax(logits, -1), 1).float()
    loss = -F.log_softmax(logits, -1).gather(1, labels).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"loss {loss.item():.4f}")
