"""A density model of its own making (pytorch-flows' MAF shape): affine coupling
layers between normalizations the script writes itself, which use the batch's
statistics `if self.training` and their running ones otherwise. Each epoch ends
with a validation pass in eval mode. `--eval-left-on`: the loop never calls
model.train() again, so from the second epoch on the normalizations run on frozen
statistics. Expected: train_in_eval_mode at the first step of epoch 2 (step 9).
`--tracker`: the normalizations are swapped for a scale that keeps a `running_`
buffer but reads no `self.training` (the same in both modes): with the eval mode
left on, nothing to report."""
import argparse
import math

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--eval-left-on", action="store_true")
parser.add_argument("--tracker", action="store_true")
args = parser.parse_args()
torch.manual_seed(0)


class RunningNorm(nn.Module):
    def __init__(self, width: int, momentum: float = 0.9) -> None:
        super().__init__()
        self.log_scale = nn.Parameter(torch.zeros(width))
        self.momentum = momentum
        self.register_buffer("running_mean", torch.zeros(width))
        self.register_buffer("running_var", torch.ones(width))

    def forward(self, x):
        if self.training:
            mean, var = x.mean(0), x.var(0) + 1e-5
            with torch.no_grad():
                self.running_mean.lerp_(mean, 1 - self.momentum)
                self.running_var.lerp_(var, 1 - self.momentum)
        else:
            mean, var = self.running_mean, self.running_var
        y = (x - mean) / var.sqrt() * self.log_scale.exp()
        return y, (self.log_scale - 0.5 * var.log()).sum().expand(x.shape[0])


class TrackedScale(nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.log_scale = nn.Parameter(torch.zeros(width))
        self.register_buffer("running_calls", torch.zeros(()))

    def forward(self, x):
        self.running_calls += 1
        return x * self.log_scale.exp(), self.log_scale.sum().expand(x.shape[0])


class Coupling(nn.Module):
    def __init__(self, width: int, flip: bool) -> None:
        super().__init__()
        self.flip = flip
        self.net = nn.Sequential(nn.Linear(width // 2, 32), nn.ReLU(), nn.Linear(32, width))

    def forward(self, x):
        keep, move = x.chunk(2, dim=1)
        if self.flip:
            keep, move = move, keep
        shift, log_scale = self.net(keep).chunk(2, dim=1)
        log_scale = torch.tanh(log_scale)
        moved = move * log_scale.exp() + shift
        out = torch.cat([moved, keep] if self.flip else [keep, moved], dim=1)
        return out, log_scale.sum(1)


class Flow(nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        layers = []
        for i in range(3):
            layers += [Coupling(width, flip=i % 2 == 1), TrackedScale(width) if args.tracker else RunningNorm(width)]
        self.layers = nn.ModuleList(layers)

    def forward(self, x):
        total = torch.zeros(x.shape[0])
        for layer in self.layers:
            x, log_det = layer(x)
            total = total + log_det
        return x, total

    def log_prob(self, x):
        z, log_det = self(x)
        return log_det - 0.5 * (z.pow(2) + math.log(2 * math.pi)).sum(1)


points = torch.randn(256, 4) @ torch.tensor([[1.0, 0.5, 0, 0], [0, 1.0, 0.3, 0], [0, 0, 1.0, 0.2], [0, 0, 0, 0.5]])
held_out = torch.randn(64, 4)
flow = Flow(4)
adam = torch.optim.Adam(flow.parameters(), lr=1e-3)
for epoch in range(1, 5):
    if epoch == 1 or not args.eval_left_on:
        flow.train()
    for start in range(0, 256, 32):
        loss = -flow.log_prob(points[start:start + 32]).mean()
        adam.zero_grad()
        loss.backward()
        adam.step()
    flow.eval()
    with torch.no_grad():
        print(f"epoch {epoch} held-out nll {-flow.log_prob(held_out).mean().item():.4f}")
