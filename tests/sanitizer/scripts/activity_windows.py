"""Human activity recognition from wrist accelerometer windows with a recurrent model
that returns the activity read at every frame and the one read from the whole window
(`frame_logits, window_logits`): the training loss reads the second output
(`_, window_logits = model(x)`). The baseline accuracy measured before training calls
`model.eval()` and the loop never calls `model.train()` again: the model's dropout is
off through all training. Options:

    --frame-metric   after the loss, each step measures how early in the window the
                     activity can be told, from the frame logits of a fixed probe window
                     at its middle, with gradients on (no torch.no_grad()), from another line.
    --dataclass      the model returns a dataclass (`ActivityOutput(frame_logits,
                     window_logits)`), as Hugging Face models return their outputs.
    --fixed          `model.train()` at the start of each epoch: nothing to report.

Expected: train_in_eval_mode at step 1, located at the training loop's call of the
model, not at the metric's."""
import argparse
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

ACTIVITIES = 5  # walking, running, sitting, standing, cycling
AXES = 6  # accelerometer and gyroscope
FRAMES = 24
HIDDEN = 48
BATCH = 16
STEPS_PER_EPOCH = 5


@dataclass
class ActivityOutput:
    frame_logits: torch.Tensor  # the activity read at every frame: (batch, frames, activities)
    window_logits: torch.Tensor  # read from the state at the window's end: (batch, activities)


class ActivityNet(nn.Module):
    def __init__(self, as_dataclass: bool) -> None:
        super().__init__()
        self.as_dataclass = as_dataclass
        self.embed = nn.Sequential(nn.Linear(AXES, 32), nn.ReLU(), nn.Dropout(0.3))
        self.cell = nn.GRUCell(32, HIDDEN)
        self.head = nn.Linear(HIDDEN, ACTIVITIES)

    def forward(self, readings: torch.Tensor):
        embedded = self.embed(readings)
        state = readings.new_zeros(len(readings), HIDDEN)
        states = []
        for t in range(FRAMES):
            state = self.cell(embedded[:, t], state)
            states.append(state)
        frame_logits, window_logits = self.head(torch.stack(states, dim=1)), self.head(state)
        return ActivityOutput(frame_logits, window_logits) if self.as_dataclass else (frame_logits, window_logits)


def windows(n: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Windows of readings whose level and rhythm depend on the activity."""
    labels = torch.randint(0, ACTIVITIES, (n,), generator=generator)
    time = torch.arange(FRAMES).float()
    rhythm = torch.sin(time[None, :, None] * (0.3 + 0.2 * labels[:, None, None]))
    readings = rhythm + 0.2 * labels[:, None, None] + 0.3 * torch.randn(n, FRAMES, AXES, generator=generator)
    return readings, labels


def accuracy(logits: torch.Tensor, labels: torch.Tensor) -> float:
    return (logits.argmax(-1) == labels).float().mean().item()


def logits(model: ActivityNet, readings: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    output = model(readings)
    return (output.frame_logits, output.window_logits) if isinstance(output, ActivityOutput) else output


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frame-metric", action="store_true")
    parser.add_argument("--dataclass", action="store_true")
    parser.add_argument("--fixed", action="store_true")
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    train_x, train_y = windows(BATCH * STEPS_PER_EPOCH, generator)
    probe_x, probe_y = windows(8, generator)
    model = ActivityNet(args.dataclass)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.eval()
    with torch.no_grad():
        print(f"baseline accuracy {accuracy(logits(model, probe_x)[1], probe_y):.3f}")
    for epoch in range(args.epochs):
        if args.fixed:
            model.train()
        for start in range(0, len(train_x), BATCH):
            x, y = train_x[start:start + BATCH], train_y[start:start + BATCH]
            if args.dataclass:
                window_logits = model(x).window_logits
            else:
                _, window_logits = model(x)
            loss = F.cross_entropy(window_logits, y)
            if args.frame_metric:
                probe_output = model(probe_x)
                frame_logits = probe_output.frame_logits if args.dataclass else probe_output[0]
                early = accuracy(frame_logits[:, FRAMES // 2], probe_y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.3f}" + (f" half-window accuracy {early:.3f}" if args.frame_metric else ""))


if __name__ == "__main__":
    main()
