"""A bag-of-tokens classifier over padded sequences: token 0 is padding
(`padding_idx=0`), so the first row of the embedding, the first values of its
gradient, never gets any.

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

VOCAB, WIDTH, LENGTH, CLASSES = 30, 64, 12, 3


class BagOfTokens(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.tokens = nn.Embedding(VOCAB, WIDTH, padding_idx=0)
        self.hidden = nn.Linear(WIDTH, 32)
        self.out = nn.Linear(32, CLASSES)

    def forward(self, ids):
        h = self.tokens(ids).sum(1) / (ids != 0).sum(1, keepdim=True).clamp(min=1)
        return self.out(torch.tanh(self.hidden(h)))


torch.manual_seed(0)
model = BagOfTokens()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(args.steps):
    ids = torch.randint(1, VOCAB, (16, LENGTH))
    lengths = torch.randint(4, LENGTH + 1, (16, 1))
    ids = ids.masked_fill(torch.arange(LENGTH) >= lengths, 0)  # padded to LENGTH
    labels = ids[:, 0] % CLASSES
    loss = F.cross_entropy(model(ids), labels)
    if not args.no_zero_grad:
        optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"loss {loss.item():.4f}")
