"""A branch is built but never called in forward. Expected: unused_parameter on aux.
`saturated`: every layer runs, but sigmoids driven to their flat ends by a bias of 4 let
no gradient back to the first layers: their gradients are exactly zero."""
import sys

import torch
from torch import nn

healthy = "healthy" in sys.argv[1:]
torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Linear(6, 6)
        self.aux = nn.Linear(6, 6)
        self.head = nn.Linear(6, 2)

    def forward(self, x):
        h = torch.relu(self.body(x))
        if healthy:
            h = h + self.aux(h)
        return self.head(h)


if "saturated" in sys.argv[1:]:
    layers = []
    for _ in range(12):
        linear = nn.Linear(32, 32)
        nn.init.normal_(linear.weight, 0, 0.02)
        nn.init.constant_(linear.bias, 4.0)
        layers += [linear, nn.Sigmoid()]
    model = nn.Sequential(nn.Linear(6, 32), *layers, nn.Linear(32, 2))
else:
    model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(6):
    loss = nn.functional.cross_entropy(model(torch.randn(4, 6)), torch.randint(0, 2, (4,)))
    opt.zero_grad()
    loss.backward()
    opt.step()
