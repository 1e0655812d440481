"""A linear regression trained to its noise floor (loss 0.3), whose teacher moves at
step 300: the targets' weights slide to new values over `--over` steps (a sensor
recalibrated in the middle of a stream), so the loss rises 8 times, then the model
follows them back slowly at its learning rate, cut tenfold at step 250. `--over 1`: the move in one step.
`--steady`: the targets' weights drift the same distance over 300 steps instead, a
loss that climbs steadily. Expected: a divergence that names the jump and its first
step, or, with `--steady`, a steady climb."""
import argparse

import torch
from torch import nn


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--over", type=int, default=6)
    parser.add_argument("--steady", action="store_true")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype)
    torch.manual_seed(args.seed)
    teacher = torch.randn(8, dtype=torch.float64)
    teacher = teacher / teacher.norm() * 1.4
    moved = torch.randn(8, dtype=torch.float64)
    moved = moved / moved.norm() * 1.45  # the new weights' distance from the old: the loss rises 2.1
    model = nn.Linear(8, 1, bias=False).to(dtype)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    # converged by step 250: the rate is cut tenfold, as a step schedule does
    schedule = torch.optim.lr_scheduler.StepLR(optimizer, step_size=250, gamma=0.1)
    span = 300 if args.steady else args.over
    for step in range(1, args.steps + 1):
        # the square root: the loss's rise (the squared distance moved) grows evenly step by step
        share = min(max(step - 299, 0) / span, 1.0) ** 0.5
        weights = teacher + share * moved
        features = torch.randn(64, 8, dtype=torch.float64)
        targets = features @ weights + 0.55 * torch.randn(64, dtype=torch.float64)
        loss = nn.functional.mse_loss(model(features.to(dtype)).squeeze(1), targets.to(dtype))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
    print(f"loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
