"""Fine-tuning in two stages, as transfer-learning tutorials do: the backbone is
frozen while the head trains, then unfrozen. A target encoder (a momentum copy of
the backbone, as BYOL and MoCo keep one) is a submodule of the model, updated by an
exponential moving average under `no_grad`; it still requires grad and no
optimizer holds it, by design.

`--unfreeze-at N` unfreezes the backbone at step N; with `--rebuild` a new optimizer
takes all the parameters then, with `--add-group` the head's optimizer is given the
backbone (`add_param_group`), without either the head's optimizer stays as it was:
the backbone's gradients are computed from step N on and never applied. The
optimizer is local to `train()`: gone when the run ends, the model still alive."""
import argparse
import copy

import torch
import torch.nn.functional as F
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=40)
parser.add_argument("--unfreeze-at", type=int, default=-1)
parser.add_argument("--rebuild", action="store_true")
parser.add_argument("--add-group", action="store_true")
args = parser.parse_args()
torch.manual_seed(0)


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU())
        self.head = nn.Linear(16, 3)
        self.target = copy.deepcopy(self.backbone)  # momentum encoder

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        features = self.backbone(x)
        with torch.no_grad():
            target = self.target(x)
        return self.head(features), target

    @torch.no_grad()
    def update_target(self, momentum: float = 0.99) -> None:
        for online, target in zip(self.backbone.parameters(), self.target.parameters()):
            target.mul_(momentum).add_(online, alpha=1 - momentum)


def train(model: Model) -> torch.Tensor:
    for p in model.backbone.parameters():
        p.requires_grad_(False)
    optimizer = torch.optim.Adam(model.head.parameters(), lr=1e-2)
    for step in range(1, args.steps + 1):
        if step == args.unfreeze_at:
            for p in model.backbone.parameters():
                p.requires_grad_(True)
            if args.rebuild:
                optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad and
                                              all(p is not t for t in model.target.parameters())], lr=1e-3)
            if args.add_group:
                optimizer.add_param_group({"params": list(model.backbone.parameters()), "lr": 1e-3})
        x = torch.randn(32, 10)
        y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
        logits, target = model(x)
        loss = F.cross_entropy(logits, y) + 0.1 * F.mse_loss(model.backbone(x), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        model.update_target()
    return loss


model = Model()
loss = train(model)
print("final loss:", f"{loss.item():.17g}")
