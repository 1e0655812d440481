"""Fit a polynomial of degree 4 from batches of 8 points, on features x, x^2, x^3, x^4,
updating the weights by hand (a classic regression example). The features are
heavy-tailed (x^4 of a normal draw): the loss and the gradient norm jump 10 to 80
times their median now and then from the first steps on, and a lucky first batch
can leave the loss's start far below where it settles. Healthy: no spike, no divergence.
`--seed N` draws another target polynomial and other batches; `--corrupt STEP` scales
that step's targets by 1000 (a corrupt batch): a loss spike there."""
import argparse

import torch
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--corrupt", type=int, default=0)
parser.add_argument("--steps", type=int, default=300)
args = parser.parse_args()

torch.manual_seed(args.seed)
DEGREE = 4
true_weight = torch.randn(DEGREE, 1) * 5
true_bias = torch.randn(1) * 5


def features(x):
    return torch.stack([x ** power for power in range(1, DEGREE + 1)], dim=1)


def batch(size=8):
    x = features(torch.randn(size))
    return x, x @ true_weight + true_bias


fc = torch.nn.Linear(DEGREE, 1)
for step in range(1, args.steps + 1):
    x, y = batch()
    if step == args.corrupt:
        y = y * 1000
    fc.zero_grad()
    loss = F.smooth_l1_loss(fc(x), y)
    loss.backward()
    with torch.no_grad():
        for param in fc.parameters():
            param -= 0.1 * param.grad
    if loss.item() < 1e-3:
        break
print(f"loss {loss.item():.4f} after {step} steps; weights {fc.weight.view(-1).tolist()}")
