"""A part-of-speech tagger whose model returns the cross-entropy summed over its real
tokens (padding ignored), which the loop then divides by how many real tokens the
batch held, as translation toolkits normalise by token count.

`--padding-batch N`: the N-th batch holds padding only. The summed cross-entropy is 0,
finite; `loss_sum / n_tokens` is 0 / 0, NaN. Expected: nonfinite_loss at step N, made
by the loss computation, `where` at the division's line, not at the cross-entropy the
model computed (its value was finite).
`--clamped`: the same batch, the count clamped to at least 1: no events.
`--mean`: the model averages the cross-entropy itself (NaN over zero tokens) and the
loop divides it by the accumulation count: `where` stays at the cross-entropy's line.
`--in-forward`: the model divides by the token count itself and returns the loss in a
dict, as Hugging Face models do; the loop calls `out["loss"].backward()`: `where` is the
line that called the model.
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

PAD = 0
parser = argparse.ArgumentParser()
parser.add_argument("--padding-batch", type=int, default=0)
parser.add_argument("--clamped", action="store_true")
parser.add_argument("--mean", action="store_true")
parser.add_argument("--in-forward", action="store_true")
args = parser.parse_args()
torch.manual_seed(3)


class Tagger(nn.Module):
    def __init__(self, words: int, tags: int, width: int = 24) -> None:
        super().__init__()
        self.embed = nn.Embedding(words, width, padding_idx=PAD)
        self.context = nn.Conv1d(width, width, kernel_size=3, padding=1)
        self.out = nn.Linear(width, tags)

    def forward(self, tokens, tags=None):
        hidden = self.context(self.embed(tokens).transpose(1, 2)).relu().transpose(1, 2)
        logits = self.out(hidden)
        if tags is None:
            return logits, None
        reduction = "mean" if args.mean else "sum"
        loss = F.cross_entropy(logits.flatten(0, 1), tags.flatten(), ignore_index=PAD, reduction=reduction)
        if args.in_forward:
            return {"logits": logits, "loss": loss / (tags != PAD).sum()}
        return logits, loss


def batch(step: int) -> tuple[torch.Tensor, torch.Tensor]:
    tokens = torch.randint(1, 50, (8, 12))
    lengths = torch.randint(4, 13, (8, 1))
    keep = torch.arange(12)[None, :] < lengths
    if step == args.padding_batch:
        keep[:] = False  # a shard's trailing batch of padding only
    tokens = tokens * keep
    tags = (tokens % 5 + 1) * keep
    return tokens, tags


model = Tagger(50, 6)
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
accumulation = 2
for step in range(1, 21):
    tokens, tags = batch(step)
    if args.in_forward:
        out = model(tokens, tags)
        optimizer.zero_grad()
        out["loss"].backward()
        optimizer.step()
        print(f"{step} {out['loss'].item():.5f}")
        continue
    logits, loss_sum = model(tokens, tags)
    n_tokens = (tags != PAD).sum()
    normaliser = accumulation if args.mean else n_tokens.clamp(min=1) if args.clamped else n_tokens
    loss = loss_sum / normaliser
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"{step} {loss.item():.5f}")
