"""A small physics-style regression trained entirely in one dtype (`--dtype float64`,
float32, bfloat16, float16), as scientific code often does with
`torch.set_default_dtype`. `--fault` sets one weight of `body.2` to Inf before
step 12: expected nonfinite_loss at step 12 traced to body.2."""
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def make_data(n: int, dtype: torch.dtype) -> TensorDataset:
    t = torch.linspace(0, 4, n, dtype=torch.float64).unsqueeze(1)
    features = torch.cat([t, t.sin(), t.cos()], dim=1)
    target = torch.exp(-0.3 * t) * torch.cos(2.5 * t)  # a damped oscillator
    return TensorDataset(features.to(dtype), target.to(dtype))


class Surrogate(nn.Module):
    def __init__(self, width: int = 32) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, width), nn.Tanh(), nn.Linear(width, width), nn.Tanh())
        self.head = nn.Linear(width, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtype", default="float64", choices=["float64", "float32", "bfloat16", "float16"])
    parser.add_argument("--fault", action="store_true")
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype)
    torch.manual_seed(0)
    torch.set_default_dtype(torch.float64 if dtype == torch.float64 else torch.float32)
    loader = DataLoader(make_data(256, dtype), batch_size=32, shuffle=True)
    model = Surrogate().to(dtype)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3, eps=1e-4)
    step = 0
    for epoch in range(args.epochs):
        for features, target in loader:
            step += 1
            if args.fault and step == 12:
                with torch.no_grad():
                    model.body[2].weight[0, 0] = float("inf")
            loss = nn.functional.mse_loss(model(features), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
