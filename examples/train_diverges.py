"""A regression whose learning rate is far too high: the loss explodes and
turns into NaN after a few dozen steps. Lints clean; run it under the
sanitizer to see where the NaN starts:

    python -m sanitizer examples/train_diverges.py
"""

import torch
from torch import nn

torch.manual_seed(0)
inputs = torch.randn(512, 16) * 4
targets = inputs @ torch.randn(16, 1) + 0.1 * torch.randn(512, 1)

model = nn.Sequential(nn.Linear(16, 64), nn.Tanh(), nn.Linear(64, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
criterion = nn.MSELoss()

for epoch in range(20):
    for start in range(0, len(inputs), 64):
        x, y = inputs[start:start + 64], targets[start:start + 64]
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.4g}")
