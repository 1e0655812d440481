"""Magnitude pruning switched on at step 16 of 60. `--fault`: amount=1.0 (meant 0.1):
the pruned layer's mask is all zero, so it and the layer before it get only all-zero
gradients from then on while the run goes on. Expected: unused_parameter from step 16,
naming both layers. Healthy (amount=0.1): nothing."""
import sys

import torch
from torch import nn
from torch.nn.utils import prune

amount = 1.0 if "--fault" in sys.argv[1:] else 0.1
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 4))
optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
teacher = torch.randn(10, 4)
for step in range(1, 61):
    if step == 16:
        prune.l1_unstructured(net[2], "weight", amount=amount)
        optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    x = torch.randn(32, 10)
    loss = nn.functional.cross_entropy(net(x), (x @ teacher).argmax(dim=1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"{loss.item():.3f}")
