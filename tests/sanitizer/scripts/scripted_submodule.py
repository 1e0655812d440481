"""A model whose encoder is compiled with `torch.jit.script` (torch keeps the Python
module behind the copy alive, sharing its parameters), and a layer `spare` that
forward never calls. Names are those of `model.named_modules()`: `spare`.
`whole`: the whole model is scripted too, and an Inf is written into `head.weight`
before step 6: the model itself is named by the class it was scripted from, `Net`."""
import sys

import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(4, 8)

    def forward(self, x):
        return torch.relu(self.l1(x))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = torch.jit.script(Encoder())
        self.head = nn.Linear(8, 1)
        self.spare = nn.Linear(8, 1)

    def forward(self, x):
        return self.head(self.enc(x))


torch.manual_seed(0)
model = torch.jit.script(Net()) if sys.argv[1:] == ["whole"] else Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(12):
    if step == 5 and sys.argv[1:] == ["whole"]:
        with torch.no_grad():
            model.head.weight[0, 0] = float("inf")
    loss = model(torch.randn(16, 4)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"{loss.item():.8f}")
