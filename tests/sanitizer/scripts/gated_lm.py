"""A tiny character language model whose blocks end by handing their result to a
child module: `--ending dropout` (`return self.dropout(h)`), `act`
(`return self.act(h)`) or `tanh` (`return self.squash(h)`, a Sequential ending
in Tanh). Each block scales its projection by a learned gain, `exp(log_gain)`.
`--fault` sets blocks.1's log gain to 55 before step 9: that block's own
multiplication jumps by ~1e24 and the attention of the next block overflows.
Expected: the culprit is blocks.1.gate, the parameter one of its own."""
import argparse
import math

import torch
from torch import nn
from torch.nn import functional as F

TEXT = ("the quick brown fox jumps over the lazy dog while the cat sleeps by the warm fire "
        "and the rain falls softly on the old tin roof of the house near the river ") * 8


class Gate(nn.Module):
    def __init__(self, width: int, ending: str) -> None:
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.log_gain = nn.Parameter(torch.zeros(width))
        self.ending = ending
        if ending == "dropout":
            self.dropout = nn.Dropout(0.1)
        elif ending == "act":
            self.act = nn.GELU()
        else:
            self.squash = nn.Sequential(nn.LayerNorm(width), nn.Linear(width, width), nn.Tanh())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.proj(x) * self.log_gain.exp()
        if self.ending == "dropout":
            return self.dropout(h)
        if self.ending == "act":
            return self.act(h)
        return self.squash(h)


class Attention(nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        mask = torch.ones(x.shape[1], x.shape[1], dtype=torch.bool).tril()
        weights = scores.masked_fill(~mask, float("-inf")).softmax(dim=-1)
        return self.out(weights @ v)


class Block(nn.Module):
    def __init__(self, width: int, ending: str) -> None:
        super().__init__()
        self.attn = Attention(width)
        self.gate = Gate(width, ending)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(x)
        return x + self.gate(x)


class CharModel(nn.Module):
    def __init__(self, vocab: int, width: int, ending: str) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList([Block(width, ending) for _ in range(3)])
        self.head = nn.Linear(width, vocab)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        x = self.embed(idx)
        for block in self.blocks:
            x = block(x)
        return self.head(x)


def batches(data: torch.Tensor, context: int, size: int):
    while True:
        starts = torch.randint(0, len(data) - context - 1, (size,))
        yield (torch.stack([data[s:s + context] for s in starts]),
               torch.stack([data[s + 1:s + context + 1] for s in starts]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ending", default="dropout", choices=["dropout", "act", "tanh"])
    parser.add_argument("--fault", action="store_true")
    parser.add_argument("--steps", type=int, default=14)
    args = parser.parse_args()
    torch.manual_seed(0)
    chars = sorted(set(TEXT))
    data = torch.tensor([chars.index(c) for c in TEXT])
    model = CharModel(len(chars), 32, args.ending)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    stream = batches(data, 16, 8)
    for step in range(1, args.steps + 1):
        x, y = next(stream)
        if args.fault and step == 9:
            with torch.no_grad():
                model.blocks[1].gate.log_gain.fill_(55.0)
        logits = model(x)
        loss = F.cross_entropy(logits.view(-1, logits.shape[-1]), y.view(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    print(f"last loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
