"""A linear model fitted by torch.optim.SGD to a degree-4 polynomial, on features
x, x^2, x^3, x^4 of a normal draw in batches of 8: each batch's loss is heavy-tailed
(one batch in ten is several times the median, a few hundreds of times), so the
medians of blocks of 8 losses wander by several times too. With `--seed 23` they
rise four blocks in a row from step 40 to step 72, from 0.62 to 4.0, then fall back
to 0.6: the series' own noise, no divergence. `--creep R`: a schedule that multiplies
the learning rate by 1 + R at every step after step 60 (a decay factor mistyped as a
growth): the loss goes up from there and never comes back; divergence."""
import argparse

import torch
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--seed", type=int, default=23)
parser.add_argument("--creep", type=float, default=0.0)
parser.add_argument("--steps", type=int, default=300)
args = parser.parse_args()

torch.manual_seed(args.seed)
coefficients = torch.randn(4, 1) * 5
intercept = torch.randn(1) * 5
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.LambdaLR(
    optimizer, lambda step: (1 + args.creep) ** max(step - 60, 0))
for step in range(1, args.steps + 1):
    draw = torch.randn(8)
    features = torch.stack([draw ** power for power in range(1, 5)], dim=1)
    target = features @ coefficients + intercept
    optimizer.zero_grad()
    loss = F.smooth_l1_loss(model(features), target)
    loss.backward()
    optimizer.step()
    scheduler.step()
print(f"loss {loss.item():.4f} after {step} steps")
