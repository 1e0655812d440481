"""A regression whose 6th batch has a missing label (NaN): the model's outputs stay finite,
the loss is NaN. Expected: nonfinite_input at step 6, naming the target of the loss
(an `nn.MSELoss` module: its `F.mse_loss` call is what the sanitizer sees)."""
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
for x, y in loader:
    loss = criterion(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"{loss.item():.6f}")
