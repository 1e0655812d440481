"""Layers called for the first time at a later step, each built where it belongs:
`experts`: a mixture whose router sends each batch to the next of three experts, all built
in __init__ and optimized; `growing`: a stack whose depth grows by one block every two steps
(blocks built in __init__); `task-head`: a head built for each episode in the training loop,
handed to the model's forward, trained with the backbone by an optimizer built for the
episode. `inline`: the outermost model's forward writes `nn.Linear(d, d)(h)`, a new layer at
every call that no optimizer holds."""
import sys

import torch
from torch import nn

mode = sys.argv[1]
torch.manual_seed(0)
D = 12


class Mixture(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Linear(D, D)
        self.experts = nn.ModuleList([nn.Linear(D, D) for _ in range(3)])
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        expert = self.experts[self.calls % len(self.experts)]
        self.calls += 1
        return expert(torch.tanh(self.embed(x)))


class Growing(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stages = nn.ModuleList([nn.Linear(D, D) for _ in range(3)])
        self.active = 1

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for stage in self.stages[:self.active]:
            x = x + torch.tanh(stage(x))
        return x


class Backbone(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.trunk = nn.Linear(D, D)

    def forward(self, x: torch.Tensor, head: nn.Module | None = None) -> torch.Tensor:
        h = torch.relu(self.trunk(x))
        if head is None:  # `inline`
            return nn.Linear(D, 4)(h)
        return head(h)


def train(model: nn.Module, steps: int) -> torch.Tensor:
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(steps):
        if isinstance(model, Growing):
            model.active = min(1 + step // 2, len(model.stages))
        x = torch.randn(24, D)
        loss = model(x).pow(2).mean() if not isinstance(model, Backbone) else \
            nn.functional.cross_entropy(model(x), torch.randint(0, 4, (24,)))
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss


if mode == "experts":
    loss = train(Mixture(), 8)
elif mode == "growing":
    loss = train(Growing(), 8)
elif mode == "inline":
    loss = train(Backbone(), 6)
else:  # task-head
    backbone = Backbone()
    for episode in range(4):
        head = nn.Linear(D, 4)
        opt = torch.optim.SGD([*backbone.parameters(), *head.parameters()], lr=1e-2)
        x, y = torch.randn(24, D), torch.randint(0, 4, (24,))
        for _ in range(2):
            loss = nn.functional.cross_entropy(backbone(x, head), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
print(f"{loss.item():.4f}")
