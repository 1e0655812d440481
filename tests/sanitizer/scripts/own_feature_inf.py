"""A physics-style net builds a log feature of its input in its own forward and hands
it to its first layer; the grid starts at 0, so the feature is -Inf. The net's output
stays finite (tanh saturates): what went non-finite is its own computation, not its output."""
import torch
from torch import nn


class FeatureNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.hidden = nn.Linear(2, 8)
        self.head = nn.Linear(8, 1)

    def forward(self, x):
        features = torch.cat([x, torch.log(x)], dim=1)
        return self.head(torch.tanh(self.hidden(features)))


torch.manual_seed(0)
net = FeatureNet()
optimizer = torch.optim.SGD(net.parameters(), lr=1e-2)
grid = torch.linspace(0, 1, 16)[:, None]
for step in range(3):
    out = net(grid)
    print("finite output", bool(torch.isfinite(out).all()))
    loss = (out - grid).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
