"""A classifier trained five steps; the sixth iteration of the loop raises before any
backward or training-mode forward of its own. `evalmode`: the model was left in eval()
and the loss computation of step 6 raises; `frozen`: step 6 raises in the frozen
encoder's forward under torch.no_grad, at the step's start; `loader`: step 6's batch
fails to load inside the loop. Expected: each says step 6, the step under way. `epoch`:
an evaluation at the end of the first epoch (after step 5, inside the epoch loop)
raises. Expected: after step 5, not the last optimizer step (training goes on)."""
import sys

import torch
from torch import nn
from torch.nn import functional as F

mode = sys.argv[1] if len(sys.argv) > 1 else "evalmode"
torch.manual_seed(0)
encoder = nn.Linear(8, 8).requires_grad_(False).eval()
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
if mode == "evalmode":
    model.eval()  # left from a validation before training: still in eval() while it trains
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def batch(step: int) -> tuple[torch.Tensor, torch.Tensor]:
    if mode == "loader" and step == 6:
        raise ValueError(f"unreadable record in batch {step}")
    return torch.randn(4, 8), torch.randint(0, 2, (4,))


for epoch in range(2):
    for step in range(5 * epoch + 1, 5 * epoch + 6):
        x, y = batch(step)
        with torch.no_grad():
            if mode == "frozen" and step == 6:
                raise RuntimeError("encoder weights missing")
            features = encoder(x)
        out = model(features)
        if mode == "evalmode" and step == 6:
            raise RuntimeError("loss of step 6 failed")
        loss = F.cross_entropy(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    if mode == "epoch":
        model.eval()
        with torch.no_grad():
            raise RuntimeError(f"validation of epoch {epoch} failed")
