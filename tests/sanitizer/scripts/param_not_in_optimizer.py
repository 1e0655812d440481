"""The classifier head is attached after the optimizer was built. Expected:
param_not_in_optimizer on head.weight at step 1."""
import sys

import torch
from torch import nn

healthy = "healthy" in sys.argv[1:]
torch.manual_seed(0)
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
