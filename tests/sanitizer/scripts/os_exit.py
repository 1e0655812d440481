"""Trains with a DataLoader whose workers are forked processes (each ends with
`os._exit`), then ends with `os._exit(status)` (the status given on the command
line; `keyword`: as `os._exit(status=...)`), as scripts do to skip a slow teardown:
no `finally`, no atexit handler."""
import atexit
import os
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

atexit.register(print, "atexit ran")
torch.manual_seed(0)
data = TensorDataset(torch.randn(64, 3), torch.randn(64, 1))
loader = DataLoader(data, batch_size=16, num_workers=2, multiprocessing_context="fork")
model = torch.nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = torch.nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"loss {loss.item():.6f}", flush=True)
try:
    if sys.argv[2:] == ["keyword"]:
        os._exit(status=int(sys.argv[1]))
    os._exit(int(sys.argv[1]))
finally:
    print("finally ran")
