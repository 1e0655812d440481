"""A small GPT-style language model with a large vocabulary trained under fp16
autocast on CPU, without a GradScaler (what timm-style scripts do off CUDA).
Healthy: most gradient values of the big output layer are tiny (below the fp16
normal range) in an fp32 run too, and fp16 flushes almost none of them to zero.

    --fp32           the same run without autocast
    --loss-scale S   multiply the loss by S (1e-5: gradients do flush to zero)
"""
import argparse
import contextlib

import torch
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        return x + self.mlp(self.norm(x))


class TinyLM(nn.Module):
    def __init__(self, vocab: int, dim: int = 64, context: int = 32) -> None:
        super().__init__()
        self.tokens = nn.Embedding(vocab, dim)
        self.positions = nn.Embedding(context, dim)
        self.blocks = nn.Sequential(Block(dim), Block(dim))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, idx):
        positions = torch.arange(idx.size(1))
        return self.head(self.norm(self.blocks(self.tokens(idx) + self.positions(positions))))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fp32", action="store_true")
    parser.add_argument("--loss-scale", type=float, default=1.0)
    args = parser.parse_args()
    torch.manual_seed(0)
    vocab, context = 8192, 32
    model = TinyLM(vocab, context=context)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    amp = (contextlib.nullcontext() if args.fp32
           else torch.autocast("cpu", dtype=torch.float16))
    for step in range(1, 13):
        idx = torch.randint(0, vocab, (8, context + 1))
        with amp:
            logits = model(idx[:, :-1])
            loss = F.cross_entropy(logits.float().view(-1, vocab), idx[:, 1:].reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        (loss * args.loss_scale).backward()
        optimizer.step()
    print(f"last loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
