"""A small causal language model trained with gradient accumulation, as GPT
training scripts write it: several forward and backward passes per optimizer
step, each loss divided by their number, the learning rate set by hand every
iteration, gradients clipped, and a periodic `estimate_loss()` in eval mode
under `torch.no_grad()` on both splits.

    --iterations N    optimizer steps (default 40)
    --accumulate M    backward passes per step (default 4)
    --dtype D         float32 (default) or bfloat16 (CPU autocast)
    --fault K         iteration K (1-based), before its third micro-batch: one
                      weight of the second block's first MLP layer becomes 1e30
"""
import argparse
import math
from contextlib import nullcontext

import torch
import torch.nn.functional as F
from torch import nn

VOCAB, CONTEXT, WIDTH, BATCH = 48, 24, 48, 8


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(WIDTH)
        self.attn = nn.MultiheadAttention(WIDTH, 4, batch_first=True)
        self.ln2 = nn.LayerNorm(WIDTH)
        self.mlp = nn.Sequential(nn.Linear(WIDTH, 4 * WIDTH), nn.GELU(), nn.Linear(4 * WIDTH, WIDTH), nn.Dropout(0.1))
        self.register_buffer("mask", torch.triu(torch.ones(CONTEXT, CONTEXT, dtype=torch.bool), 1))

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=self.mask, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.tokens = nn.Embedding(VOCAB, WIDTH)
        self.positions = nn.Embedding(CONTEXT, WIDTH)
        self.blocks = nn.ModuleList([Block(), Block()])
        self.ln = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, VOCAB, bias=False)

    def forward(self, idx, targets=None):
        x = self.tokens(idx) + self.positions(torch.arange(idx.shape[1]))
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.ln(x))
        loss = None if targets is None else F.cross_entropy(logits.view(-1, VOCAB), targets.view(-1))
        return logits, loss


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=40)
    parser.add_argument("--accumulate", type=int, default=4)
    parser.add_argument("--dtype", choices=("float32", "bfloat16"), default="float32")
    parser.add_argument("--fault", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(0)

    data = torch.randint(0, VOCAB, (12000,))
    data[1::2] = (data[::2] * 5 + 1) % VOCAB  # every second token follows from the one before

    def get_batch(split):
        start = 0 if split == "train" else 9000
        ix = torch.randint(start, start + 2500, (BATCH,))
        return (torch.stack([data[i:i + CONTEXT] for i in ix]),
                torch.stack([data[i + 1:i + CONTEXT + 1] for i in ix]))

    model = TinyGPT()
    learning_rate = 3e-3
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, betas=(0.9, 0.95), weight_decay=0.1)
    autocast = (nullcontext() if args.dtype == "float32"
                else torch.amp.autocast(device_type="cpu", dtype=torch.bfloat16))

    @torch.no_grad()
    def estimate_loss():
        model.eval()
        out = {}
        for split in ("train", "val"):
            losses = torch.zeros(4)
            for k in range(4):
                x, y = get_batch(split)
                with autocast:
                    _, loss = model(x, y)
                losses[k] = loss.item()
            out[split] = losses.mean().item()
        model.train()
        return out

    def get_lr(iteration):
        if iteration < 5:
            return learning_rate * (iteration + 1) / 5
        return learning_rate * 0.5 * (1 + math.cos(math.pi * (iteration - 5) / (args.iterations - 5)))

    x, y = get_batch("train")
    for iteration in range(args.iterations):
        for group in optimizer.param_groups:
            group["lr"] = get_lr(iteration)
        if iteration % 10 == 0:
            losses = estimate_loss()
            print(f"iteration {iteration}: train {losses['train']:.3f}, val {losses['val']:.3f}")
        for micro in range(args.accumulate):
            if iteration + 1 == args.fault and micro == 2:
                with torch.no_grad():
                    model.blocks[1].mlp[0].weight[0, 0] = 1e30
            with autocast:
                _, loss = model(x, y)
                loss = loss / args.accumulate
            x, y = get_batch("train")  # fetched while the backward pass would run on a GPU
            loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


if __name__ == "__main__":
    main()
