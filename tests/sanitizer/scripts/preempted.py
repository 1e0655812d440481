"""A preemption handler, as a job scheduler's SIGTERM finds it: it asks for the handler
that was there before and chains to it only when that is a function (the default is
not), then the loop checkpoints and stops cleanly. Plain python: exit 0, every line
printed."""
import os
import signal

import torch

previous = signal.getsignal(signal.SIGTERM)
stop = []


def on_preemption(signum, frame):
    print("checkpointing", flush=True)
    stop.append(signum)
    if callable(previous):
        previous(signum, frame)


replaced = signal.signal(signal.SIGTERM, on_preemption)
print(previous is signal.SIG_DFL, replaced is signal.SIG_DFL)
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(1, 11):
    opt.zero_grad()
    model(torch.randn(8, 4)).pow(2).mean().backward()
    opt.step()
    if step == 5:
        os.kill(os.getpid(), signal.SIGTERM)
    if stop:
        print("stopped at", step)
        break
print("done")
