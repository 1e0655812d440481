"""A regression model whose optimizer runs inside the backward pass, to save the
memory of its gradients: one AdamW per parameter, stepped and cleared from a
gradient hook as soon as that parameter's gradient is accumulated (large-model
fine-tuning recipes do this). The loop itself only calls `loss.backward()`.

    --steps N       iterations (default 120)
    --fault K       iteration K (1-based) feeds an all-zero row: the model's
                    input normalization divides it by its norm of zero
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn


class Normalize(nn.Module):
    """Scales each row to unit length (no epsilon: a zero row gives 0/0)."""

    def forward(self, x):
        return x / x.norm(dim=-1, keepdim=True)


class Regressor(nn.Module):
    def __init__(self, features: int = 24, hidden: int = 64) -> None:
        super().__init__()
        self.norm_in = Normalize()
        self.body = nn.Sequential(nn.Linear(features, hidden), nn.GELU(), nn.Linear(hidden, hidden), nn.GELU())
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.head(self.body(self.norm_in(x)))


def fuse_optimizer_into_backward(model: nn.Module, lr: float) -> dict:
    optimizers = {p: torch.optim.AdamW([p], lr=lr, foreach=False) for p in model.parameters()}

    def step_and_free(param: torch.Tensor) -> None:
        optimizers[param].step()
        optimizers[param].zero_grad(set_to_none=True)

    for param in model.parameters():
        param.register_post_accumulate_grad_hook(step_and_free)
    return optimizers


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=120)
    parser.add_argument("--fault", type=int, default=None)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = Regressor()
    fuse_optimizer_into_backward(model, lr=3e-3)
    direction = torch.randn(24)
    first = last = None
    for step in range(1, args.steps + 1):
        x = torch.randn(64, 24)
        if step == args.fault:
            x[5] = 0.0
        y = (F.normalize(x, dim=-1) @ direction).unsqueeze(-1)
        loss = F.mse_loss(model(x), y)
        loss.backward()  # every parameter is updated in here
        first = loss.item() if first is None else first
        last = loss.item()
    print(f"loss: {first:.4f}, {last:.4f}")


if __name__ == "__main__":
    main()
