"""A sequence model (two LSTM cells over 80 time steps) trained by LBFGS, whose closure
LBFGS calls up to `max_iter` (20) times per step; with `--fault N` the series the
closure reads gets a NaN before step N. Expected: nonfinite_input at step N (the
batch), not a loss made NaN by the loss computation. `healthy`: no event.

The closure's later calls of a step (LBFGS's iterations) come after the step was
measured: their forwards fill the following step's trail ahead of its own.
"""
import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--fault", type=int, default=0, help="the step whose input gets a NaN (0: none)")
parser.add_argument("--steps", type=int, default=6)
args = parser.parse_args()
torch.manual_seed(0)


class Sequence(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.cell1 = nn.LSTMCell(1, 8)
        self.cell2 = nn.LSTMCell(8, 8)
        self.head = nn.Linear(8, 1)

    def forward(self, series: torch.Tensor) -> torch.Tensor:
        h1 = c1 = series.new_zeros(series.size(0), 8)
        h2 = c2 = series.new_zeros(series.size(0), 8)
        outputs = []
        for value in series.split(1, dim=1):
            h1, c1 = self.cell1(value, (h1, c1))
            h2, c2 = self.cell2(h1, (h2, c2))
            outputs.append(self.head(h2))
        return torch.cat(outputs, dim=1)


time = torch.arange(81, dtype=torch.float32) / 8
waves = torch.sin(time + torch.rand(4, 1) * 6)
series, target = waves[:, :-1].clone(), waves[:, 1:].clone()
model = Sequence()
criterion = nn.MSELoss()
opt = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=20)
for step in range(1, args.steps + 1):
    if step == args.fault:
        series[1, 7] = float("nan")

    def closure() -> torch.Tensor:
        opt.zero_grad()
        loss = criterion(model(series), target)
        loss.backward()
        return loss

    opt.step(closure)
print("finished")
