"""A small MLP trained through torch.compile (aot_eager backend: no C++ toolchain
needed), printing what the compiler did: frames compiled, graphs, recompiles.

    --nan-step K   the batch of step K holds a NaN
"""
import argparse

import torch
import torch._dynamo
import torch.nn.functional as F
from torch import nn
from torch._dynamo.utils import counters


class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 32), nn.GELU(), nn.Linear(32, 32), nn.LayerNorm(32))
        self.head = nn.Linear(32, 3)

    def forward(self, x):
        return self.head(self.body(x))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nan-step", type=int, default=-1)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = MLP()
    compiled = torch.compile(model, backend="aot_eager")
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    losses = []
    for step in range(1, 9):
        x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
        if step == args.nan_step:
            x[0, 0] = float("nan")
        optimizer.zero_grad()
        loss = F.cross_entropy(compiled(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    print("frames", dict(counters["frames"]))
    print("stats", {k: v for k, v in counters["stats"].items() if k in ("unique_graphs", "calls_captured")})
    print("recompiles", sum(v for k, v in counters["recompiles"].items()) if counters["recompiles"] else 0)
    print("graph_breaks", sum(counters["graph_break"].values()))
    print("losses", [float.hex(v) for v in losses])


if __name__ == "__main__":
    main()
