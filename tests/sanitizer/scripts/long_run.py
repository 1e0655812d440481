"""20,000 tiny steps: the sanitizer's own memory must stay bounded."""
import resource

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
x, y = torch.randn(4, 2), torch.randn(4, 1)
marks = []
for step in range(20_000):
    opt.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    opt.step()
    if step in (2_000, 19_999):
        marks.append(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
print(f"rss_kb {marks[0]} {marks[1]}")
