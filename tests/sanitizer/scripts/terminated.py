"""Terminated by SIGTERM after three steps, as a timeout or a job scheduler would
(sent to itself). Plain python dies at once: no `finally`, no atexit handler."""
import atexit
import os
import signal
import time

import torch

atexit.register(lambda: print("atexit ran", flush=True))
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
try:
    for step in range(3):
        model(torch.randn(2, 3)).sum().backward()
        opt.step()
        opt.zero_grad()
    print("stepped", flush=True)
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(5)
finally:
    print("finally ran", flush=True)
