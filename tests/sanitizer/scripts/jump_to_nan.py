"""A small MLP regression with SGD, whose batch at step `--at` comes from a sensor
read in the wrong unit: its features are `--scale` times too large. That loss jumps
far above the loss so far, and the update from it overflows the weights: the next
loss is Inf, the ones after NaN. `--scale 1`: healthy. Expected: one problem, the
non-finite loss, with the jump just before it as what led up to it."""
import argparse

import torch
from torch import nn


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--at", type=int, default=80)
    parser.add_argument("--scale", type=float, default=1e10)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 1)).to(dtype)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(1, args.steps + 1):
        features = torch.randn(32, 4)
        targets = features.sum(1, keepdim=True).sin()
        if step == args.at:
            features = features * args.scale
        loss = nn.functional.mse_loss(model(features.to(dtype)), targets.to(dtype))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
