"""At step 8 one Linear's weights are multiplied by 1e37: its output jumps, a LayerNorm
downstream turns it into NaN. Expected: culprit encoder.fc1, param encoder.fc1.weight.
With `frozen`, the script freezes what it built out of the garbage collector before
training (`gc.freeze()`, as before forking data workers): the names are the same."""
import gc
import sys

import torch
from torch import nn

healthy = "healthy" in sys.argv[1:]
torch.manual_seed(0)


class Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(8, 32)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(32, 32)
        self.norm = nn.LayerNorm(32)

    def forward(self, x):
        return self.norm(self.fc2(self.act(self.fc1(x))))


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = Encoder()
        self.head = nn.Linear(32, 3)

    def forward(self, x):
        return self.head(self.encoder(x))


model = Model()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
if "frozen" in sys.argv[1:]:
    gc.freeze()
for step in range(1, 16):
    x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
    if step == 8 and not healthy:
        with torch.no_grad():
            model.encoder.fc1.weight.mul_(1e37)
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("finished")
