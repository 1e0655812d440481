"""A model whose forward the script calls directly, not through `model(x)`: a
layer trained by a method of its own that runs `self.forward(x)` (layer-wise
training, each layer with its optimizer), or (`--call outside`) a loop that runs
`model.forward(x)`. No hook of the model itself runs then; only its child, a
parameter-free activation (`--act relu`, or `softplus`), is called as a module.

`--fault N` puts a NaN into the batch of step N (a corrupt sample): the batch the
model is given holds NaN; the model itself is sound."""
import argparse

import torch
import torch.nn.functional as F
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=30)
parser.add_argument("--fault", type=int, default=-1)
parser.add_argument("--call", choices=("method", "outside"), default="method")
parser.add_argument("--act", choices=("relu", "softplus"), default="relu")
args = parser.parse_args()
torch.manual_seed(0)


class Scorer(nn.Module):
    def __init__(self, inputs: int, outputs: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(outputs, inputs) * inputs ** -0.5)
        self.bias = nn.Parameter(torch.zeros(outputs))
        self.act = nn.ReLU() if args.act == "relu" else nn.Softplus()
        self.optimizer = torch.optim.SGD(self.parameters(), lr=0.05)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        unit = x / (x.norm(dim=1, keepdim=True) + 1e-4)
        return self.act(unit @ self.weight.t() + self.bias)

    def fit(self, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        loss = F.mse_loss(self.forward(x).mean(1), target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss


model = Scorer(12, 24)
for step in range(1, args.steps + 1):
    x = torch.randn(64, 12)
    target = (x[:, 0] > 0).float()
    if step == args.fault:
        x[5, 3] = float("nan")
    if args.call == "method":
        loss = model.fit(x, target)
    else:
        loss = F.mse_loss(model.forward(x).mean(1), target)
        model.optimizer.zero_grad()
        loss.backward()
        model.optimizer.step()
print("final loss:", f"{loss.item():.17g}")
