"""A two-layer network written with bare tensors and a hand-written update (the
classic autograd tutorial): `w1` and `w2` are top-level variables, the bias lives
only in a list. `--lr` 1e-3 (a thousand times the tutorial's) makes the loss blow
up at step 2 and turn Inf, then NaN, while the run goes on."""
import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=1e-6)
args = parser.parse_args()

torch.manual_seed(0)
x, y = torch.randn(64, 100), torch.randn(64, 10)
w1 = torch.randn(100, 50, requires_grad=True)
w2 = torch.randn(50, 10, requires_grad=True)
extra = [torch.zeros(10, requires_grad=True)]
for t in range(30):
    loss = (x.mm(w1).clamp(min=0).mm(w2) + extra[0] - y).pow(2).sum()
    loss.backward()
    with torch.no_grad():
        for weight in (w1, w2, extra[0]):
            weight -= args.lr * weight.grad
            weight.grad.zero_()
print("loss", loss.item())
