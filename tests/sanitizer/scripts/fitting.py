"""`overfit`: a big MLP memorises 24 samples with random labels; validation on fresh random
labels gets worse. `underfit`: a tiny learning rate leaves the loss where it started.
`healthy`: a learnable task where train and validation both fall. `mismatch`: the
same task, its validation inputs not normalised as the training ones are: validation
is far worse than an untrained model from the first evaluation."""
import sys

import torch
from torch import nn

mode = sys.argv[1]
torch.manual_seed(0)
teacher = torch.randn(12, 3)


def batch(n, learnable):
    x = torch.randn(n, 12)
    y = (x @ teacher).argmax(dim=1) if learnable else torch.randint(0, 3, (n,))
    return x, y


learnable = mode in ("healthy", "mismatch")
train_x, train_y = batch(24 if mode == "overfit" else 512, learnable)
val_x, val_y = batch(128, learnable)
if mode == "mismatch":
    val_x = val_x * 10 + 40
width = 256 if mode == "overfit" else 32
model = nn.Sequential(nn.Linear(12, width), nn.ReLU(), nn.Linear(width, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-6 if mode == "underfit" else 3e-3)
for epoch in range(80 if mode == "overfit" else 12):
    model.train()
    for i in range(0, len(train_x), 24 if mode == "overfit" else 64):
        loss = nn.functional.cross_entropy(model(train_x[i:i + 64]), train_y[i:i + 64])
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        val = nn.functional.cross_entropy(model(val_x), val_y)
