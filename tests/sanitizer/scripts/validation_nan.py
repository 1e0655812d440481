"""A classifier validated after each epoch of 8 steps:

    data      one validation sample holds a NaN (a missing value): every validation
              loss is NaN while training stays finite
    train     the learning rate blows the weights up at step 13: training goes NaN
              first, and the validation after it only follows
    per_sample  as `data`, with the validation loss per sample (`reduction="none"`,
              then its mean): no level to compare, still a NaN validation
    healthy   nothing wrong
    checkpoint  no training: the model is loaded from a checkpoint one of whose weights
              is NaN and validated once (an evaluation-only script)
"""
import sys

import torch
import torch.nn.functional as F
from torch import nn

WHERE = sys.argv[1]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
train = [(torch.randn(16, 6), torch.randint(0, 3, (16,))) for _ in range(8)]
val = [(torch.randn(16, 6), torch.randint(0, 3, (16,))) for _ in range(3)]
if WHERE in ("data", "per_sample"):
    val[1][0][5, 2] = float("nan")


def validate():
    model.eval()
    total = 0.0
    with torch.no_grad():
        for x, y in val:
            if WHERE == "per_sample":
                total += F.cross_entropy(model(x), y, reduction="none").mean().item()
            else:
                total += F.cross_entropy(model(x), y).item()
    model.train()
    return total / len(val)


if WHERE == "checkpoint":
    saved = {name: tensor.clone() for name, tensor in model.state_dict().items()}
    saved["2.weight"][1, 3] = float("nan")
    model.load_state_dict(saved)
    print(f"validation {validate():.4f}")
    sys.exit(0)

step = 0
for epoch in range(3):
    for x, y in train:
        step += 1
        if WHERE == "train" and step == 13:
            for group in optimizer.param_groups:
                group["lr"] = 1e38
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} validation {validate():.4f}")
