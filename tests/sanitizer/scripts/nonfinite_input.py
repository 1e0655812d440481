"""The 5th batch holds a NaN feature (a corrupt sample). Expected: nonfinite_input at step 5.

`background`: meanwhile another thread sits inside a module's forward (a monitor
model blocked until training ends): the training thread's calls are not its
children, and the blame stays on the batch.

`masked`: the model takes NaN for a missing value on purpose (an isnan mask and a
learned fill, as GRU-D or a tabular imputer): its outputs, the loss and the
gradients stay finite. Expected: no event, a note.
"""
import sys
import threading

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

healthy = "healthy" in sys.argv[1:]
background = "background" in sys.argv[1:]
masked = "masked" in sys.argv[1:]
torch.manual_seed(0)
features = torch.randn(64, 6)
labels = torch.randint(0, 2, (64,))
if not healthy:
    features[4 * 8 + 3, 2] = float("nan")
loader = DataLoader(TensorDataset(features, labels), batch_size=8)
model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))


class Imputer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fill = nn.Parameter(torch.zeros(6))
        self.net = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 2))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        missing = torch.isnan(x)
        return self.net(torch.cat([torch.where(missing, self.fill.expand_as(x), x), missing.float()], 1))


if masked:
    features[torch.rand(64, 6) < 0.2] = float("nan")
    model = Imputer()
opt = torch.optim.SGD(model.parameters(), lr=0.1)

entered, release = threading.Event(), threading.Event()


class Monitor(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(6, 6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        entered.set()
        release.wait()
        return self.fc(x)


def watch() -> None:
    with torch.no_grad():
        Monitor()(torch.randn(2, 6))


if background:
    thread = threading.Thread(target=watch)
    thread.start()
    entered.wait()
for x, y in loader:
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
release.set()
if background:
    thread.join()
