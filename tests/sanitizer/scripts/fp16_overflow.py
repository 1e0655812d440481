"""A classifier under CPU autocast with a GradScaler; at step 5 a batch arrives 1e5 times
larger than the others (an input left unnormalised). In float16 (the default) the first
Linear's output passes 65504 and overflows: the report names that layer and says it is
float16. `--dtype bfloat16` runs the same batches, whose range holds the large batch."""
import argparse

import torch
from torch import nn
from torch.nn import functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--dtype", default="float16", choices=["float16", "bfloat16"])
args = parser.parse_args()
dtype = getattr(torch, args.dtype)
torch.manual_seed(39)


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(16, 256), nn.ReLU())
        self.head = nn.Linear(256, 4)

    def forward(self, x):
        return self.head(self.enc(x))


model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
scaler = torch.amp.GradScaler("cpu", enabled=dtype is torch.float16)
for step in range(1, 9):
    x = torch.randn(32, 16)
    y = x[:, :4].argmax(1)
    if step == 5:
        x = x * 1e5
    with torch.autocast("cpu", dtype=dtype):
        loss = F.cross_entropy(model(x).float(), y)
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    print(step, "finite" if torch.isfinite(loss) else "non-finite")
