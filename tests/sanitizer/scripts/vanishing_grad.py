"""A sigmoid output layer whose weights are blown up at step 20: it saturates, every
gradient becomes ~0 while the loss stays high. Expected: vanishing_grad after step 20.

`converged`: full-batch least squares on noisy targets, run to its optimum: the
gradient goes to ~0 because the model learned all it can (the loss fell about
ninefold, to the noise's variance). Expected: nothing. `plateau`: the same with a
noise floor above half the first loss (it falls by a third only), the gradient
halving each step. Expected: nothing."""
import sys

import torch
from torch import nn

healthy = "healthy" in sys.argv[1:]
torch.manual_seed(0)
if "converged" in sys.argv[1:] or "plateau" in sys.argv[1:]:
    plateau = "plateau" in sys.argv[1:]
    features = torch.randn(400 if plateau else 200, 5)
    weights = torch.tensor([0.3, -0.2, 0.1, 0.0, 0.2] if plateau else [1.0, -2.0, 0.5, 0.0, 3.0])
    targets = features @ weights + (1.0 if plateau else 1.5) * torch.randn(len(features))
    model = nn.Linear(5, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.3 if plateau else 0.1)
    for step in range(300):
        loss = nn.functional.mse_loss(model(features).squeeze(1), targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"{loss.item():.6f}")
    sys.exit(0)
model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 1), nn.Sigmoid())
opt = torch.optim.SGD(model.parameters(), lr=0.5)
for step in range(1, 41):
    x = torch.randn(32, 8)
    y = (x[:, :1] > 0).float()
    if step == 20 and not healthy:
        with torch.no_grad():
            model[2].weight.mul_(1e4)
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
