"""A residual MLP trained with activation checkpointing, as memory-bound
fine-tuning does: each block's activations are dropped after the forward and
recomputed in the backward pass.

    --reentrant     torch.utils.checkpoint's reentrant variant: the blocks run
                    without gradients in the forward pass, and again with them
                    inside the backward pass
    --steps N       iterations (default 80)
    --fault K       from iteration K (1-based) the third block's output
                    temperature is 0: its own code divides by zero
    --inner-fault K the same, on the hidden values the block hands to its
                    `down` layer: the block's own code, not `down`, made them Inf
"""
import argparse

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)
        self.temperature = 1.0
        self.inner_temperature = 1.0

    def forward(self, x):
        h = self.down(F.gelu(self.up(self.norm(x))) / self.inner_temperature)
        return x + h / self.temperature


class Model(nn.Module):
    def __init__(self, features: int = 12, width: int = 32, depth: int = 4, reentrant: bool = False) -> None:
        super().__init__()
        self.embed = nn.Linear(features, width)
        self.blocks = nn.ModuleList(Block(width) for _ in range(depth))
        self.head = nn.Linear(width, 1)
        self.reentrant = reentrant

    def forward(self, x):
        h = self.embed(x)
        for block in self.blocks:
            h = checkpoint(block, h, use_reentrant=self.reentrant)
        return self.head(h)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reentrant", action="store_true")
    parser.add_argument("--steps", type=int, default=80)
    parser.add_argument("--fault", type=int, default=None)
    parser.add_argument("--inner-fault", type=int, default=None)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = Model(reentrant=args.reentrant)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3)
    target = torch.randn(12)
    for step in range(1, args.steps + 1):
        if step == args.fault:
            model.blocks[2].temperature = 0.0
        if step == args.inner_fault:
            model.blocks[2].inner_temperature = 0.0
        x = torch.randn(48, 12, requires_grad=args.reentrant)  # reentrant needs an input that requires grad
        y = torch.tanh(x.detach() @ target).unsqueeze(-1)
        loss = F.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"loss: {loss.item():.4f}")


if __name__ == "__main__":
    main()
