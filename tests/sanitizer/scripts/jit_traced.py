"""A small MLP traced with torch.jit.trace (its default check_trace re-traces and
compares the graphs), a loss function traced too, then the traced module trained:
prints the traced graphs and the losses.

    --nan-step K   the batch of step K holds a NaN
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn


class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 32), nn.LayerNorm(32))
        self.head = nn.Linear(32, 3)

    def forward(self, x):
        return self.head(F.gelu(self.body(x)))


def smoothed_loss(logits, y):
    return F.cross_entropy(logits, y, label_smoothing=0.1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nan-step", type=int, default=-1)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = MLP()
    body = torch.jit.trace_module(model.body, {"forward": torch.randn(4, 8)})
    traced = torch.jit.trace(model, torch.randn(4, 8))
    loss_fn = torch.jit.trace(smoothed_loss, (torch.randn(4, 3), torch.randint(0, 3, (4,))))
    print("graph", str(traced.graph))
    print("body", str(body.graph))
    print("loss", str(loss_fn.graph))
    optimizer = torch.optim.SGD(traced.parameters(), lr=0.1)
    losses = []
    for step in range(1, 7):
        x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
        if step == args.nan_step:
            x[0, 0] = float("nan")
        optimizer.zero_grad()
        loss = loss_fn(traced(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    print("losses", [float.hex(v) for v in losses])


if __name__ == "__main__":
    main()
