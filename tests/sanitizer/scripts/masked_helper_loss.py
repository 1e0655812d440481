"""A token tagger whose loss is computed in a helper of another module (token_losses.py):
a mean over the tokens its mask keeps. The batch of step 5 is all padding, the mask keeps
no token, and the helper's mean is 0 / 0 = NaN. Expected: the NaN loss points at the
helper's line that computes it (`return kept.sum() / mask.sum()`), not at the loop's call
of the helper (loss_from_finite.py `masked`, whose helper is in the script itself, points
at its call). `counted`: the helper is decorated (`functools.wraps`); the NaN loss points
at the helper's own line, not at the decorator's wrapper. `timed`: a decorator with no
`functools.wraps`, whose wrapper hides the helper: the NaN loss points at the loop's call,
not at the wrapper's line."""
import sys

import torch
from torch import nn

from token_losses import counted_token_loss, masked_token_loss, timed_token_loss

token_loss = {"counted": counted_token_loss, "timed": timed_token_loss}.get(sys.argv[1] if sys.argv[1:] else "", masked_token_loss)

torch.manual_seed(0)
tagger = nn.Sequential(nn.Embedding(50, 16), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 6))
opt = torch.optim.SGD(tagger.parameters(), lr=0.1)
for step in range(1, 9):
    tokens = torch.randint(1, 50, (4, 12))
    tags = torch.randint(0, 6, (4, 12))
    lengths = torch.randint(3, 13, (4, 1))
    mask = (torch.arange(12) < lengths).float()
    if step == 5:
        mask.zero_()  # a batch of padding only
    logits = tagger(tokens)
    loss = token_loss(logits, tags, mask)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("done")
