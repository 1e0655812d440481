"""A regression whose 6th batch has a missing label (NaN): the model's outputs stay finite,
the loss is NaN. Expected: nonfinite_input at step 6, naming the target of the loss
(an `nn.MSELoss` module: its `F.mse_loss` call is what the sanitizer sees).
`accumulate`: gradients of two batches summed, each loss halved before backward: the
same target is named.
`penalty`: an L1 penalty on the output layer's weights (a second functional loss, finite)
is added to the loss after it: the same target is named, at the MSE loss's line."""
import sys

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
features = torch.randn(64, 5)
targets = features @ torch.randn(5, 1)
targets[5 * 8 + 2, 0] = float("nan")
loader = DataLoader(TensorDataset(features, targets), batch_size=8)
model = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 1))
criterion = nn.MSELoss()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for i, (x, y) in enumerate(loader):
    loss = criterion(model(x), y)
    if "penalty" in sys.argv[1:]:
        loss = loss + 1e-3 * F.l1_loss(model[2].weight, torch.zeros_like(model[2].weight))
    if "accumulate" in sys.argv[1:]:
        (loss / 2).backward()
        if i % 2 == 1:
            opt.step()
            opt.zero_grad()
    else:
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"{loss.item():.6f}")
