"""A 5-class MLP classifier with a linear learning-rate warm-up. `--peak-lr 3`
(a typo for 3e-3): the loss goes from chance (ln 5 = 1.6) to ~120 at step 2,
then the dead network sits at chance for the rest of the run, with no NaN.
Expected: divergence at step 2. The default peak (1e-3) trains normally, with
the noise of small batches."""
import argparse

import torch
from torch import nn
from torch.nn import functional as F


def clusters(n: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    centres = torch.randn(5, 20, generator=torch.Generator().manual_seed(7)) * 0.6
    labels = torch.randint(0, 5, (n,), generator=generator)
    return centres[labels] + torch.randn(n, 20, generator=generator), labels


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--peak-lr", type=float, default=1e-3)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--steps", type=int, default=120)
    args = parser.parse_args()
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(3)
    model = nn.Sequential(nn.Linear(20, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 5))
    optimizer = torch.optim.Adam(model.parameters(), lr=args.peak_lr)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / args.warmup))
    for step in range(1, args.steps + 1):
        inputs, labels = clusters(16, generator)
        loss = F.cross_entropy(model(inputs), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        if step % 20 == 0 or step < 6:
            print(f"step {step} loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
