"""A branch is built but never called in forward. Expected: unused_parameter on aux."""
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


model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(6):
    loss = nn.functional.cross_entropy(model(torch.randn(4, 6)), torch.randint(0, 2, (4,)))
    opt.zero_grad()
    loss.backward()
    opt.step()
