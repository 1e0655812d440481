"""A regressor with a second head whose part of the loss is gated to zero from iteration
`--switch` on: the forward still calls the head, but the gate multiplies its output by
0, so its gradients are tensors of zeros from then on (`zero_grad(set_to_none=False)`).
The model is local to `main()`, gone when the run ends.
Expected: the head reported as having stopped learning while the forward still runs it,
whatever step the switch falls on (before or after the last power of two of the run)."""
import argparse

import torch
from torch import nn


class TwoHeads(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(5, 16), nn.Tanh())
        self.main_head = nn.Linear(16, 1)
        self.side_head = nn.Linear(16, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        features = self.trunk(x)
        return self.main_head(features), self.side_head(features)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--switch", type=int, default=40)
    parser.add_argument("--iterations", type=int, default=120)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = TwoHeads()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    weights = torch.randn(5, 1)
    for iteration in range(args.iterations):
        x = torch.randn(32, 5)
        y = x @ weights
        optimizer.zero_grad(set_to_none=False)
        prediction, side = model(x)
        gate = 1.0 if iteration < args.switch else 0.0
        loss = nn.functional.mse_loss(prediction, y) + gate * nn.functional.mse_loss(side, -y)
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
