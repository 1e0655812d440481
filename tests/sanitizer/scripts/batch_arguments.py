"""The batch given to the model anywhere among its arguments. Modes (argv[1]):

`weights`: model(token_ids, weights), an EmbeddingBag's per-sample weights; the
weights hold an Inf at step 3. `keyword`: model(x=batch), Inf at step 3. `dict`:
model({"ids": ..., "x": ...}), Inf in "x" at step 3. Expected: nonfinite_input at
step 3 naming the argument.

`mask`: a small attention model given model(x, mask), an additive padding mask of
0 and -inf (only some batches are padded); healthy. Expected: no event, no note.
`mask_overflow`: the same, and at step 4 the batch is scaled so far that the
attention scores overflow: the model's own computation, not the mask, is to blame.
`state`: a GRU cell given model(x, h), its hidden state carried from step to step
(detached); at step 3 the model's own gain overflows: the NaN state it hands the
next steps is that step's consequence, not bad data.
"""
import sys

import torch
from torch import nn

mode = sys.argv[1]
torch.manual_seed(0)


class Bag(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.bag, self.fc = nn.EmbeddingBag(50, 8, mode="sum"), nn.Linear(8, 2)

    def forward(self, token_ids, weights):
        return self.fc(self.bag(token_ids, per_sample_weights=weights))


class Features(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.emb, self.fc = nn.Embedding(50, 8), nn.Linear(16, 2)

    def forward(self, batch):
        return self.fc(torch.cat([self.emb(batch["ids"]), batch["x"]], 1))


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))

    def forward(self, x):
        return self.net(x)


class Recurrent(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.cell, self.fc, self.gain = nn.GRUCell(8, 8), nn.Linear(8, 2), 1.0

    def forward(self, x, h):
        h = self.cell(x, h)
        return self.fc(h * self.gain), h


class Attention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.q, self.k, self.v, self.out = nn.Linear(8, 8), nn.Linear(8, 8), nn.Linear(8, 8), nn.Linear(8, 2)

    def forward(self, x, mask):
        scores = self.q(x) @ self.k(x).transpose(1, 2) / 8 ** 0.5 + mask[:, None, :]
        return self.out((scores.softmax(-1) @ self.v(x)).mean(1))


model = {"weights": Bag, "dict": Features, "keyword": Net, "state": Recurrent}.get(mode, Attention)()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
h = torch.zeros(16, 8)
for step in range(1, 7):
    if mode == "weights":
        ids, weights = torch.randint(0, 50, (16, 5)), torch.rand(16, 5)
        if step == 3:
            weights[0, 0] = float("inf")
        out, y = model(ids, weights), ids[:, 0] % 2
    elif mode == "dict":
        ids, x = torch.randint(0, 50, (16,)), torch.rand(16, 8)
        if step == 3:
            x[0, 0] = float("inf")
        out, y = model({"ids": ids, "x": x}), ids % 2
    elif mode == "keyword":
        x = torch.randn(16, 8)
        if step == 3:
            x[0, 0] = float("inf")
        out, y = model(x=x), (x[:, 1] > 0).long()
    elif mode == "state":
        model.gain = 1e39 if step == 3 else 1.0
        x = torch.randn(16, 8)
        (out, h), y = model(x, h), (x[:, 0] > 0).long()
        h = h.detach()
    else:
        x, mask = torch.randn(16, 6, 8), torch.zeros(16, 6)
        if step % 2 == 0:
            mask[:8, 4:] = float("-inf")  # padded positions of the first 8 sequences
        if mode == "mask_overflow" and step == 4:
            x = x * 1e30
        out, y = model(x, mask), (x[:, 0, 0] > 0).long()
    loss = nn.functional.cross_entropy(out, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("done")
