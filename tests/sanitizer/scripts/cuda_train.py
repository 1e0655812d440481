"""A small language model trained on a CUDA device, in the precision asked for, with
one fault at a time. Prints each step's loss as an exact hex float and a checksum of
the final weights, so a run under the sanitizer can be compared with a plain one.

    --precision fp32|fp64|bf16|fp16   autocast dtype (fp64: the model itself in float64)
    --scaler                          fp16 with torch.amp.GradScaler("cuda")
    --fault none|overflow|tiny-loss|nan|leak|growth
        overflow:  a block squares its large activations: fp16 overflows every step
        tiny-loss: the loss is multiplied by 1e-4 before backward (no scaler)
        nan:       at step 6 the second block's projection is multiplied by 1e37
        leak:      `total += loss` keeps every step's graph on the GPU
        growth:    a 16 MiB GPU tensor per step kept in a list (no graph)
    --compile                         torch.compile (inductor)
    --device                          cuda (default), or cpu to try the script without a GPU
"""
import argparse
import os

import torch
import torch.nn.functional as F
from torch import nn

VOCAB, WIDTH, SEQ = 512, 128, 64


class Block(nn.Module):
    def __init__(self, square: bool = False) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(WIDTH)
        self.proj = nn.Linear(WIDTH, 4 * WIDTH)
        self.out = nn.Linear(4 * WIDTH, WIDTH)
        self.square = square

    def forward(self, x):
        h = F.gelu(self.proj(self.norm(x)))
        if self.square:
            h = (h * 300) * (h * 300)
        return x + self.out(h)


class TinyLM(nn.Module):
    def __init__(self, square: bool) -> None:
        super().__init__()
        self.tokens = nn.Embedding(VOCAB, WIDTH)
        self.blocks = nn.Sequential(Block(), Block(square))
        self.head = nn.Linear(WIDTH, VOCAB)

    def forward(self, idx):
        return self.head(self.blocks(self.tokens(idx)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--precision", choices=("fp32", "fp64", "bf16", "fp16"), default="fp32")
    parser.add_argument("--scaler", action="store_true")
    parser.add_argument("--fault", default="none",
                        choices=("none", "overflow", "tiny-loss", "nan", "leak", "growth"))
    parser.add_argument("--compile", action="store_true")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # cuBLAS' deterministic mode
    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True, warn_only=True)
    device = torch.device(args.device)
    model = TinyLM(square=args.fault == "overflow").to(device)
    if args.precision == "fp64":
        model = model.double()
    autocast_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(args.precision)
    forward = torch.compile(model) if args.compile else model
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler(device.type, init_scale=2.0 ** 16) if args.scaler else None
    data = torch.randint(0, VOCAB, (args.steps, 16, SEQ + 1), device=device)
    total, kept = 0.0, []
    for step in range(1, args.steps + 1):
        idx = data[step - 1]
        if args.fault == "nan" and step == 6:
            with torch.no_grad():
                model.blocks[1].proj.weight.mul_(1e37)
        with torch.autocast(device.type, dtype=autocast_dtype or torch.float32, enabled=autocast_dtype is not None):
            logits = forward(idx[:, :-1])
        loss = F.cross_entropy(logits.float().view(-1, VOCAB), idx[:, 1:].reshape(-1))
        if args.fault == "tiny-loss":
            loss = loss * 1e-4
        optimizer.zero_grad(set_to_none=True)
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()
        if args.fault == "leak":
            total += loss
        else:
            total += loss.item()
        if args.fault == "growth":
            kept.append(torch.full((4096, 1024), float(step), device=device))
        print(f"step {step} loss {loss.item().hex()}")
    checksum = sum(float(p.detach().double().sum()) for p in model.parameters())
    print(f"checksum {checksum.hex()}")


if __name__ == "__main__":
    main()
