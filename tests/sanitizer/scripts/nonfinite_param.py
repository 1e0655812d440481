"""Adam with eps=0: embedding rows that get no gradient update as 0/0 = NaN at step 1.
Expected: nonfinite_param at step 1 on embed.weight."""
import sys

import torch
from torch import nn

healthy = "healthy" in sys.argv[1:]
torch.manual_seed(0)


class Tagger(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(50, 8)
        self.head = nn.Linear(8, 3)

    def forward(self, tokens):
        return self.head(self.embed(tokens).mean(dim=1))


model = Tagger()
opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-8 if healthy else 0.0)
for step in range(1, 6):
    tokens, y = torch.randint(0, 10, (4, 5)), torch.randint(0, 3, (4,))
    loss = nn.functional.cross_entropy(model(tokens), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
