"""A forward hook of the script's own replaces a module's output: the all-zero rows of
padding make NaN in a normalising layer, and the hook turns them into zeros.
The model trains on finite values, so nothing is non-finite (`guarded`, the default).
With `observed` the same hook only looks (it returns None): the NaN reaches the loss at
step 3 and is reported at the normalising layer. A block that calls itself (a recursive
cell) with a hook of its own trains alongside, and every module keeps only its own hooks."""
import sys

import torch
from torch import nn
from torch.nn import functional as F

observed = "observed" in sys.argv[1:]
torch.manual_seed(0)


class Normalise(nn.Module):
    def forward(self, x):
        return x / x.norm(dim=1, keepdim=True)  # 0 / 0 on an all-zero row


class Recurse(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.cell = nn.Linear(16, 16)

    def forward(self, x, depth=2):
        x = torch.tanh(self.cell(x))
        return self(x, depth - 1) if depth else x


def guard(module, args, output):
    cleaned = torch.nan_to_num(output, nan=0.0)
    return None if observed else cleaned


encoder = nn.Sequential(nn.Linear(8, 16, bias=False), nn.ReLU(), Normalise())
encoder[2].register_forward_hook(guard)
recurse = Recurse()
recurse.register_forward_hook(lambda module, args, output: output * 0.5)
model = nn.Sequential(encoder, recurse, nn.Linear(16, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(1, 9):
    x = torch.randn(32, 8)
    if step >= 3:
        x[:4] = 0.0
    loss = F.cross_entropy(model(x), (x[:, 0] > 0).long())
    if observed and not torch.isfinite(loss):
        print(f"non-finite at step {step}")
        break
    opt.zero_grad()
    loss.backward()
    opt.step()
print("hooks", [len(m._forward_hooks) for m in model.modules()])
