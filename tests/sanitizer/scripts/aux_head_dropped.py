"""A regressor with an auxiliary head that predicts the input's norm, as a warm-up aid:
its loss is added for the first `--warmup` iterations only, after which the forward no
longer calls the head. The gradients are cleared with `zero_grad(set_to_none=False)`,
so the head's gradients stay tensors of zeros from then on.
Expected: the head reported as having stopped learning, as a branch the loss no longer
reaches; never as a layer the forward still runs."""
import argparse

import torch
from torch import nn


class Regressor(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(6, 24), nn.Tanh())
        self.target_head = nn.Linear(24, 1)
        self.norm_head = nn.Linear(24, 1)

    def forward(self, x: torch.Tensor, with_aux: bool) -> tuple[torch.Tensor, torch.Tensor | None]:
        features = self.trunk(x)
        return self.target_head(features), self.norm_head(features) if with_aux else None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--warmup", type=int, default=25)
    parser.add_argument("--iterations", type=int, default=80)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = Regressor()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    weights = torch.randn(6, 1)
    for iteration in range(args.iterations):
        x = torch.randn(48, 6)
        y = x @ weights + 0.05 * torch.randn(48, 1)
        optimizer.zero_grad(set_to_none=False)
        prediction, norm = model(x, with_aux=iteration < args.warmup)
        loss = nn.functional.mse_loss(prediction, y)
        if norm is not None:
            loss = loss + 0.1 * nn.functional.mse_loss(norm, x.norm(dim=1, keepdim=True))
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
