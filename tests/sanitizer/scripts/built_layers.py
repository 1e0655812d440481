"""Layers built anew at each step, seen where the forward of a model first calls them.

    loop       a refiner's forward runs `h = torch.tanh(nn.Linear(D, D)(h))` three times:
               three new layers at every call, at one line, that no optimizer holds.
               Expected: one param_not_in_optimizer at step 3 naming the refiner, "new
               Linear layers (3 in step 3)".
    handed     a probe head built in the training loop at each step and handed to the
               model's forward (`model(x, head)`), the optimizer over the model alone.
               Expected: the head's weights named as outside every optimizer, by the
               loop's variable (`head`), and nothing said of a layer built in forward.
    registered the three layers built once in __init__ (an nn.ModuleList) and looped
               over; the head built once before the loop and given to the optimizer.
               Expected: nothing.
"""
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "loop"
torch.manual_seed(0)
D, ROUNDS = 10, 3


class Refiner(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Linear(D, D)
        self.rounds = nn.ModuleList([nn.Linear(D, D) for _ in range(ROUNDS)]) if mode == "registered" else None

    def forward(self, x: torch.Tensor, head: nn.Module | None = None) -> torch.Tensor:
        h = torch.tanh(self.embed(x))
        if mode == "loop":
            for _ in range(ROUNDS):
                h = torch.tanh(nn.Linear(D, D)(h))
        elif self.rounds is not None:
            for layer in self.rounds:
                h = torch.tanh(layer(h))
        return head(h) if head is not None else h.sum(-1, keepdim=True)


model = Refiner()
fixed_head = nn.Linear(D, 1)
opt = torch.optim.Adam([*model.parameters(), *([] if mode == "handed" else fixed_head.parameters())], lr=1e-2)
x, y = torch.randn(16, D), torch.randn(16, 1)
for step in range(1, 7):
    head = nn.Linear(D, 1) if mode == "handed" else fixed_head
    loss = nn.functional.mse_loss(model(x, head), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"{step} {loss.item():.6f}")
