"""The loss computation itself turns finite model outputs into NaN at step 4.
`ignored` (default): a batch whose labels all equal ignore_index: nn.CrossEntropyLoss
averages over zero items. `masked`: a hand-written masked mean whose mask is empty
(0 / 0), backward on the next line. Expected: nonfinite_loss at step 4 saying the
model's outputs are finite and the loss computation made the NaN, `where` at the line
computing the loss, advice about the loss (not about the learning rate)."""
import sys

import torch
from torch import nn

masked = "masked" in sys.argv[1:]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
criterion = nn.CrossEntropyLoss()
opt = torch.optim.SGD(model.parameters(), lr=0.05)


def masked_mean(outputs, labels):
    errors = (outputs - torch.ones_like(outputs)).pow(2)
    mask = (labels >= 0).float()[:, None]
    return (errors * mask).sum() / mask.sum()


def cross_entropy(outputs, labels):
    return criterion(outputs, labels)


compute_loss = masked_mean if masked else cross_entropy
for step in range(1, 9):
    x = torch.randn(12, 6)
    labels = torch.randint(0, 3, (12,))
    if step == 4:
        labels[:] = -100  # padding only
    loss = compute_loss(model(x), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("finished")
