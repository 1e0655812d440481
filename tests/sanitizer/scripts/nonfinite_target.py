"""A regression whose 6th batch has a missing label (NaN): the model's outputs stay finite,
the loss is NaN. Expected: nonfinite_input at step 6, naming the target of the loss
(an `nn.MSELoss` module: its `F.mse_loss` call is what the sanitizer sees).
`accumulate`: gradients of two batches summed, each loss halved before backward: the
same target is named."""
import sys

import torch
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
