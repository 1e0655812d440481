"""House prices regressed under CPU fp16 autocast with a GradScaler, read from data shards
in turn. Prices are in millions; the batch of step 40 holds four listings of whole apartment
blocks of 30 flats priced as one (prices 30 times a flat's): the loss spikes and is back
at the next step.
Options:

    --dollars-from N   from step N on, the shards hold prices in dollars (a million times
                       too large): the gradients pass fp16's range at any loss scale, the
                       scaler skips every step and its scale collapses.

Expected: with `--dollars-from 70` the collapse is the first problem and the spike at
step 40, come back from 29 steps before the skipping began, a problem of its own; with
`--dollars-from 41` the loss never came back from the spike before the skipping began:
the spike led up to the collapse; a plain run reports the spike alone."""
import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--dollars-from", type=int, default=None)
parser.add_argument("--steps", type=int, default=100)
args = parser.parse_args()
torch.manual_seed(0)
FEATURES = 6  # area, rooms, age, distance to centre, floor, lot size (standardised)
weights = torch.tensor([0.3, 0.1, -0.05, -0.12, 0.02, 0.08])


def shard_batch(step: int) -> tuple[torch.Tensor, torch.Tensor]:
    features = torch.randn(64, FEATURES)
    prices = 0.6 + features @ weights + 0.02 * torch.randn(64)  # millions
    if step == 40:
        prices[:4] *= 30  # a block of 30 flats listed at its whole price
    if args.dollars_from is not None and step >= args.dollars_from:
        prices = prices * 1e6
    return features, prices.unsqueeze(1)


model = nn.Sequential(nn.Linear(FEATURES, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
scaler = torch.amp.GradScaler("cpu")
for step in range(1, args.steps + 1):
    features, prices = shard_batch(step)
    with torch.autocast("cpu", dtype=torch.float16):
        predicted = model(features)
    loss = nn.functional.mse_loss(predicted.float(), prices)
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    if step % 10 == 0:
        print(step, f"{loss.item():.6g}", f"scale {scaler.get_scale():g}", flush=True)
