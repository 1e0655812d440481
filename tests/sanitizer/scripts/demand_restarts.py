"""Daily demand of a shop's products forecast by a small MLP from calendar and price
features, trained with SGD under a warm-restart schedule. The batch of step 40 holds
four days whose sales were logged in units of cents (targets 100 times too large): the
loss spikes and is back at the next step. Options:

    --restart-lr LR   the schedule's restart at step 120 jumps the learning rate to LR
                      (a config typo: 50 for 0.05): the loss spikes and blows up to Inf.
    --seed N          torch's seed (3 by default), for bench/sanitizer_seeds.py.

Expected: with `--restart-lr 50` the blow-up at step 120 is the first problem, with the
spike it began with, and the spike of step 40, come back from long before, a problem
of its own, listed after it; with the default `--restart-lr 0.05` the spike of step 40
alone, saying when the loss came back."""
import argparse
import math

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--restart-lr", type=float, default=0.05)
parser.add_argument("--steps", type=int, default=160)
parser.add_argument("--seed", type=int, default=3)
args = parser.parse_args()
torch.manual_seed(args.seed)
FEATURES = 10  # weekday, month, holiday, price, discount, ... (standardised)
true_weights = torch.randn(FEATURES, 1) * 0.5

model = nn.Sequential(nn.Linear(FEATURES, 32), nn.Tanh(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(1, args.steps + 1):
    if step == 120:  # the warm restart
        for group in optimizer.param_groups:
            group["lr"] = args.restart_lr
    features = torch.randn(32, FEATURES)
    demand = features @ true_weights + 0.1 * torch.randn(32, 1)
    if step == 40:
        demand[:4] *= 100  # logged in cents
    loss = nn.functional.mse_loss(model(features), demand)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if not math.isfinite(loss.item()):
        print(f"step {step}: loss is {loss.item()}, stopping")
        break
    if step % 20 == 0:
        print(step, f"{loss.item():.6g}", flush=True)
