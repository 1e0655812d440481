"""A mixture-of-experts layer returns its output and a router z-loss of its own; at
step 11 a batch of huge inputs makes the z-loss overflow (exp of large logits) while
the layer's output stays finite. Expected: the loss is Inf, traced to `moe`.
`healthy`: no such batch, no events."""
import sys

import torch
import torch.nn.functional as F
from torch import nn

healthy = "healthy" in sys.argv[1:]
torch.manual_seed(0)


class MixtureOfExperts(nn.Module):
    def __init__(self, width: int, experts: int) -> None:
        super().__init__()
        self.router = nn.Linear(width, experts)
        self.experts = nn.ModuleList(nn.Linear(width, width) for _ in range(experts))

    def forward(self, x):
        logits = self.router(x)
        weights = logits.softmax(-1)
        out = sum(weights[:, i:i + 1] * expert(x) for i, expert in enumerate(self.experts))
        z_loss = logits.exp().sum(-1).log().pow(2).mean()
        return out, z_loss


class Classifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.moe = MixtureOfExperts(8, 4)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        hidden, aux = self.moe(x)
        return self.head(hidden), aux


model = Classifier()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(1, 21):
    x = torch.randn(32, 8) * (100.0 if step == 11 and not healthy else 1.0)
    y = (x[:, 0] > 0).long()
    logits, aux = model(x)
    loss = F.cross_entropy(logits, y) + 1e-3 * aux
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"{step} {loss.item():.6f}")
