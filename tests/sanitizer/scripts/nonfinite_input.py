"""The 5th batch holds a NaN feature (a corrupt sample). Expected: nonfinite_input at step 5."""
import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

healthy = "healthy" in sys.argv[1:]
torch.manual_seed(0)
features = torch.randn(64, 6)
labels = torch.randint(0, 2, (64,))
if not healthy:
    features[4 * 8 + 3, 2] = float("nan")
loader = DataLoader(TensorDataset(features, labels), batch_size=8)
model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
