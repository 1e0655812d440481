"""fp16 autocast with a GradScaler; the faulty model squares large activations, which
overflow fp16 on every step, so the scaler skips every step and its scale collapses.
Expected: scale_collapse (an error), no nonfinite_grad errors on skipped steps."""
import sys

import torch
from torch import nn

healthy = "healthy" in sys.argv[1:]
torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x)
        return h if healthy else (h * 300) * (h * 300)


model = nn.Sequential(Block(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 10)
for step in range(1, 26):
    x, y = torch.randn(16, 8), torch.randn(16, 1)
    with torch.autocast("cpu", dtype=torch.float16):
        loss = nn.functional.mse_loss(model(x).float(), y)
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
