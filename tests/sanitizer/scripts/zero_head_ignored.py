"""A tagger whose output layer starts at zero (as ReZero / adaLN-zero gates do): its
outputs grow from exactly 0 by orders of magnitude as it learns, which is no blow-up. At
step 2 every label of the batch is padding (-100): cross_entropy is 0 / 0 = NaN, made by
the loss computation, not by the outputs. `int32`: the tags come as int32 (as a NumPy
array of labels gives them) and are converted in the loss call (`tags.long()`), a
temporary the loss outlives."""
import sys

import torch
from torch import nn

int32 = sys.argv[1:] == ["int32"]

torch.manual_seed(1)
tagger = nn.Sequential(nn.Linear(10, 32), nn.Tanh(), nn.Linear(32, 5))
nn.init.zeros_(tagger[2].weight)
nn.init.zeros_(tagger[2].bias)
opt = torch.optim.Adam(tagger.parameters(), lr=2e-2)
for step in range(6):
    tokens = torch.randn(20, 10)
    tags = torch.randint(0, 5, (20,))
    if step == 1:
        tags.fill_(-100)
    if int32:
        loss = nn.functional.cross_entropy(tagger(tokens), tags.int().long())
    else:
        loss = nn.functional.cross_entropy(tagger(tokens), tags)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("finished")
