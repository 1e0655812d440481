"""Layer-local training without backpropagation through the stack: each layer has its own
Adam and is trained to give positive samples a high "goodness" (mean squared activation)
and negative ones a low one, through a hand-written softplus, log(1 + exp(margin)).
`--lr-scale 1e4`: the learning rate 10^4 times too high. The first update makes every
activation hundreds of times larger; exp() of the next step's margins overflows: the loss
is Inf although every activation is finite."""
import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--lr-scale", type=float, default=1.0)
parser.add_argument("--steps", type=int, default=12)
args = parser.parse_args()
torch.manual_seed(0)


class LocalLayer(nn.Linear):
    def __init__(self, n_in: int, n_out: int) -> None:
        super().__init__(n_in, n_out)
        self.opt = torch.optim.Adam(self.parameters(), lr=0.02 * args.lr_scale)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        unit = x / (x.norm(dim=1, keepdim=True) + 1e-4)
        return torch.relu(super().forward(unit))

    def fit(self, pos: torch.Tensor, neg: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        for _ in range(args.steps):
            good_pos = self(pos).pow(2).mean(1)
            good_neg = self(neg).pow(2).mean(1)
            margins = torch.cat([2.0 - good_pos, good_neg - 2.0])
            loss = torch.log1p(torch.exp(margins)).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
        print(f"{loss.item():.4f}")
        return self(pos).detach(), self(neg).detach()


pos = torch.randn(128, 40) + 1.0
neg = torch.randn(128, 40) - 1.0
stack = [LocalLayer(40, 64), LocalLayer(64, 64)]
for layer in stack:
    pos, neg = layer.fit(pos, neg)
