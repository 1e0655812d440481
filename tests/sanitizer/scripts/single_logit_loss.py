"""A regressor with one output per sample trained on targets in [0, 1). `--loss ce`:
cross_entropy over that single logit, whose log_softmax is 0 whatever the logit, so
every loss is exactly 0 from the first step and no gradient comes back. `--loss
masked`: a squared error times a padding mask that is all zero. Expected for both:
unused_parameter naming the whole model, at step 1. `--loss bce` (the fix) and
`--loss ramp` (the BCE weighted by a ramp that holds it at exactly 0 for the first 12
steps, then lets it train): nothing."""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--loss", choices=("ce", "masked", "bce", "ramp"), default="bce")
args = parser.parse_args()
torch.manual_seed(0)


class Regressor(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.hidden = nn.Linear(20, 16)
        self.out = nn.Linear(16, 1)

    def forward(self, x):
        return self.out(torch.relu(self.hidden(x)))


model = Regressor()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs = torch.rand(256, 20)
targets = (inputs[:, :1] > 0.5).float()
steps = 0
for epoch in range(3):
    for start in range(0, 256, 32):
        steps += 1
        x, y = inputs[start:start + 32], targets[start:start + 32]
        optimizer.zero_grad()
        output = model(x)
        if args.loss == "ce":
            loss = F.cross_entropy(output, y)
        elif args.loss == "masked":
            pad = torch.zeros_like(y)  # meant: ones where the sample is real
            loss = ((output - y) ** 2 * pad).mean()
        else:
            weight = 1.0 if args.loss == "bce" else max(0, steps - 12) / 12
            loss = weight * F.binary_cross_entropy_with_logits(output, y)
        loss.backward()
        optimizer.step()
print(f"loss {loss.item():.4f}")
