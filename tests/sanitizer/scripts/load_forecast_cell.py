"""Electricity load forecast one hour ahead by a recurrent cell the loop calls once per
hour of a day's readings: each call returns `(forecast of the next hour, state)`. The
loss compares the forecasts of hours 1..23 with the readings that followed; the last
call's forecast, for tomorrow's first hour, has no reading yet and is only logged. The
baseline error measured before training calls `model.eval()` and the loop never calls
`model.train()` again: the cell's dropout is off through all training. Options:

    --probe      after the loss, each step forecasts a fixed probe day hour by hour, with
                 gradients on (no torch.no_grad()), from another line, to log its error.
    --fixed      `model.train()` at the start of each epoch: nothing to report.

Expected: train_in_eval_mode at step 1, located at the training loop's call of the cell,
though the loss reads none of that line's last call."""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

HOURS = 24
METERS = 16  # households read together: the batch
HIDDEN = 32
STEPS_PER_EPOCH = 4


class LoadCell(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Dropout(0.2))  # load, hour sin, hour cos
        self.cell = nn.GRUCell(16, HIDDEN)
        self.forecast = nn.Linear(HIDDEN, 1)

    def forward(self, reading: torch.Tensor, state: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        state = self.cell(self.embed(reading), state)
        return self.forecast(state), state


def days(n: int, generator: torch.Generator) -> torch.Tensor:
    """(days, hours, 3): each household's load, with the hour of day as sine and cosine."""
    hour = torch.arange(HOURS).float() * (2 * torch.pi / HOURS)
    level = 1.0 + 0.3 * torch.rand(n, 1, generator=generator)
    load = level * (1.0 + 0.5 * torch.sin(hour - 2.0)) + 0.05 * torch.randn(n, HOURS, generator=generator)
    return torch.stack([load, torch.sin(hour).expand(n, -1), torch.cos(hour).expand(n, -1)], dim=-1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--probe", action="store_true")
    parser.add_argument("--fixed", action="store_true")
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(2)
    train = days(METERS * STEPS_PER_EPOCH, generator)
    probe = days(4, generator)
    model = LoadCell()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.eval()
    with torch.no_grad():
        state = torch.zeros(len(probe), HIDDEN)
        forecast, state = model(probe[:, 0], state)
        print(f"baseline error {F.l1_loss(forecast.squeeze(1), probe[:, 1, 0]).item():.3f}")
    for epoch in range(args.epochs):
        if args.fixed:
            model.train()
        for start in range(0, len(train), METERS):
            day = train[start:start + METERS]
            state = torch.zeros(len(day), HIDDEN)
            forecasts = []
            for hour in range(HOURS):
                forecast, state = model(day[:, hour], state)
                forecasts.append(forecast.squeeze(1))
            tomorrow = forecasts.pop()  # no reading yet
            loss = F.mse_loss(torch.stack(forecasts, dim=1), day[:, 1:, 0])
            if args.probe:
                probe_state = torch.zeros(len(probe), HIDDEN)
                probe_error = 0.0
                for hour in range(HOURS - 1):
                    probe_forecast, probe_state = model(probe[:, hour], probe_state)
                    probe_error += F.l1_loss(probe_forecast.squeeze(1), probe[:, hour + 1, 0]).item() / (HOURS - 1)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f} tomorrow's first hour {tomorrow.mean().item():.3f}"
              + (f" probe error {probe_error:.3f}" if args.probe else ""))


if __name__ == "__main__":
    main()
