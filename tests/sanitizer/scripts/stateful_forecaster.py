"""Stateful GRU forecaster of a long sensor trace, trained by truncated backpropagation
through time: the trace is cut into consecutive windows and the hidden state at the end
of one window starts the next, cut from its graph with `.detach()`.

`--keep-graph`: the carried state is not detached, so the second window's backward()
runs into the first window's graph, which its own backward() freed, and the script
crashes in step 2. `--two-heads`: a level loss and a trend loss over one encoder, each
given its own backward(): the second runs into the graph the first freed, in step 1."""
import argparse
import math

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--keep-graph", action="store_true")
parser.add_argument("--two-heads", action="store_true")
parser.add_argument("--window", type=int, default=25)
args = parser.parse_args()

torch.manual_seed(0)
time_axis = torch.arange(2000, dtype=torch.float32)
trace = torch.sin(2 * math.pi * time_axis / 96) + 0.3 * torch.sin(2 * math.pi * time_axis / 17)
trace = (trace + 0.05 * torch.randn_like(trace)).view(1, -1, 1)


class Forecaster(nn.Module):
    def __init__(self, hidden: int = 32) -> None:
        super().__init__()
        self.gru = nn.GRU(1, hidden, batch_first=True)
        self.level = nn.Linear(hidden, 1)
        self.trend = nn.Linear(hidden, 1)

    def forward(self, window: torch.Tensor, state: torch.Tensor | None) -> tuple[torch.Tensor, ...]:
        features, state = self.gru(window, state)
        return self.level(features), self.trend(features), state


model = Forecaster()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
state = None
for step, start in enumerate(range(0, trace.size(1) - args.window - 1, args.window), start=1):
    window = trace[:, start:start + args.window]
    following = trace[:, start + 1:start + args.window + 1]
    if state is not None and not args.keep_graph:
        state = state.detach()
    level, trend, state = model(window, state)
    level_loss = nn.functional.mse_loss(level, following)
    trend_loss = nn.functional.mse_loss(trend, following - window)
    optimizer.zero_grad()
    if args.two_heads:
        level_loss.backward()
        trend_loss.backward()
    else:
        (level_loss + trend_loss).backward()
    optimizer.step()
    if step % 20 == 0:
        print(f"step {step}: level {level_loss.item():.4f} trend {trend_loss.item():.4f}")
