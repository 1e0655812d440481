"""Sets a variable torch reads as it loads before importing it (a CPU benchmark's first
lines): the run must get the thread count it asked for, as in a plain run (the tests run
scripts with OMP_NUM_THREADS=1: this asks for another count)."""
import os

os.environ["OMP_NUM_THREADS"] = "2" if os.environ.get("OMP_NUM_THREADS") == "1" else "1"

import torch  # noqa: E402
from torch import nn  # noqa: E402

print("threads", torch.get_num_threads())
torch.manual_seed(0)
model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    loss = model(torch.randn(16, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print("loss", loss.item().hex())
