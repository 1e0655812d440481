"""The classifier head is attached after the optimizer was built. Expected:
param_not_in_optimizer on head.weight at step 1.

`stale`: stage 1 trains everything with one optimizer; stage 2 builds a second one
for the head alone, the first still alive but never stepped again, so the
backbone's gradients pile up unapplied. Expected: param_not_in_optimizer on
backbone.0, saying only a stopped optimizer holds it."""
import sys

import torch
from torch import nn

healthy = "healthy" in sys.argv[1:]
torch.manual_seed(0)
if "stale" in sys.argv[1:]:
    model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 3))
    first = torch.optim.SGD(model.parameters(), lr=0.1)
    second = torch.optim.SGD(model[2].parameters(), lr=0.1)
    for step in range(45):
        optimizer = first if step < 5 else second
        loss = nn.functional.cross_entropy(model(torch.randn(4, 6)), torch.randint(0, 3, (4,)))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    sys.exit(0)
model = nn.Module()
model.backbone = nn.Sequential(nn.Linear(6, 12), nn.ReLU())
if healthy:
    model.head = nn.Linear(12, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
if not healthy:
    model.head = nn.Linear(12, 3)
for step in range(5):
    logits = model.head(model.backbone(torch.randn(4, 6)))
    loss = nn.functional.cross_entropy(logits, torch.randint(0, 3, (4,)))
    opt.zero_grad()
    loss.backward()
    opt.step()
