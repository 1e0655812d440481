"""Ctrl-C after two steps (SIGINT sent to itself), with an atexit handler to run."""
import atexit
import os
import signal
import time

import torch

atexit.register(lambda: print("atexit ran", flush=True))
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    model(torch.randn(2, 3)).sum().backward()
    opt.step()
os.kill(os.getpid(), signal.SIGINT)
time.sleep(5)
