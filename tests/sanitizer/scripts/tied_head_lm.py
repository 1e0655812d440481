"""A small character model whose output layer shares its weight with the input
embedding (weight tying, as GPT-2 does): the model's own parameters all live under
its `body`, the tied head adds none, and one optimizer steps the whole model.

    --no-zero-grad    never clear the gradients (the fault)
    --steps N         (default 40)
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--no-zero-grad", action="store_true")
parser.add_argument("--steps", type=int, default=40)
args = parser.parse_args()

VOCAB, WIDTH, CONTEXT = 20, 16, 8


class TiedLM(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.ModuleDict(dict(
            tokens=nn.Embedding(VOCAB, WIDTH),
            mix=nn.Sequential(nn.Linear(WIDTH, WIDTH), nn.Tanh()),
            norm=nn.LayerNorm(WIDTH),
        ))
        self.head = nn.Linear(WIDTH, VOCAB, bias=False)
        self.head.weight = self.body.tokens.weight  # tied: named once, under body

    def forward(self, ids):
        h = self.body.tokens(ids)
        h = self.body.norm(h + self.body.mix(h))
        return self.head(h)


torch.manual_seed(0)
model = TiedLM()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
stream = torch.arange(400) * 7 % VOCAB
for step in range(args.steps):
    start = torch.randint(0, len(stream) - CONTEXT - 1, (8,))
    x = torch.stack([stream[s:s + CONTEXT] for s in start])
    y = torch.stack([stream[s + 1:s + CONTEXT + 1] for s in start])
    loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
    if not args.no_zero_grad:
        optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"loss {loss.item():.4f}")
