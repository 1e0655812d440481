"""A small encoder whose block writes its output projection and its norm inline in
`forward`: `nn.Linear(d, d)(h)` and `nn.LayerNorm(d)(h)` build new layers at every call,
whose weights no optimizer holds. `--registered`: the same block with both built in
__init__ (and a parameter-free `nn.Softmax(dim=-1)` still made inline, which is harmless),
plus a head built lazily at the first call and handed to the optimizer then."""
import sys

import torch
from torch import nn

registered = "--registered" in sys.argv[1:]
torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.mix = nn.Linear(d, d)
        if registered:
            self.proj = nn.Linear(d, d)
            self.norm = nn.LayerNorm(d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = nn.Softmax(dim=-1)(self.mix(x)) * x
        if registered:
            return self.norm(self.proj(h) + x)
        return nn.LayerNorm(h.size(-1))(nn.Linear(h.size(-1), h.size(-1))(h) + x)


class Encoder(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.blocks = nn.Sequential(Block(d), Block(d))
        self.head: nn.Module | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.head is None:
            self.head = nn.Linear(x.size(-1), 1)
            opt.add_param_group({"params": self.head.parameters()})
        return self.head(self.blocks(x))


model = Encoder(16)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
w = torch.randn(16, 1)
for step in range(30):
    x = torch.randn(32, 16)
    loss = nn.functional.mse_loss(model(x), x @ w)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"{loss.item():.4f}")
