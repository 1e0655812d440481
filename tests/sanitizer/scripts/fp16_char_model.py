"""Next-character model over a small generated corpus, trained under fp16 autocast on
the CPU with a GradScaler whose scale comes from the command line (a config ported
from a static-loss-scale setup), validated every few steps in eval mode.

`--loss-scale 6e-8`: fp16 flushes every gradient to zero, the loss never moves and
the validation loss stays as high: grad_underflow, and the underfitting it causes.
The default scale trains: nothing to report."""
import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--loss-scale", type=float, default=2.0 ** 10)
parser.add_argument("--steps", type=int, default=60)
parser.add_argument("--context", type=int, default=4)
args = parser.parse_args()

torch.manual_seed(0)
words = ["river", "stone", "lantern", "meadow", "harbor", "copper", "willow", "ember"]
corpus = " ".join(words[int(i)] for i in torch.randint(len(words), (3000,)))
alphabet = sorted(set(corpus))
codes = torch.tensor([alphabet.index(ch) for ch in corpus])
cut = int(0.9 * len(codes))
train_codes, val_codes = codes[:cut], codes[cut:]


def batch(split: torch.Tensor, size: int = 64) -> tuple[torch.Tensor, torch.Tensor]:
    starts = torch.randint(len(split) - args.context - 1, (size,))
    windows = torch.stack([split[s:s + args.context + 1] for s in starts.tolist()])
    return windows[:, :-1], windows[:, -1]


class CharModel(nn.Module):
    def __init__(self, vocab: int, width: int = 48) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.mix = nn.Sequential(nn.Linear(width * args.context, 128), nn.GELU(), nn.Dropout(0.1))
        self.head = nn.Linear(128, vocab)

    def forward(self, context: torch.Tensor) -> torch.Tensor:
        return self.head(self.mix(self.embed(context).flatten(1)))


model = CharModel(len(alphabet))
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
scaler = torch.amp.GradScaler("cpu", init_scale=args.loss_scale, growth_interval=10 ** 6)


@torch.no_grad()
def validate() -> float:
    model.eval()
    total = 0.0
    for _ in range(4):
        x, y = batch(val_codes)
        total += nn.functional.cross_entropy(model(x), y).item()
    model.train()
    return total / 4


for step in range(args.steps):
    if step % 10 == 0:
        print(f"step {step}: val loss {validate():.3f}")
    x, y = batch(train_codes)
    with torch.autocast("cpu", dtype=torch.float16):
        loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad(set_to_none=True)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
print(f"final val loss {validate():.3f}")
