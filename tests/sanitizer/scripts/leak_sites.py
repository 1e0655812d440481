"""Leaks fed away from the loop, found where they are fed.
`queue`: a MoCo-style queue buffer written in place, with its graph, by a method.
`hook`: a forward hook keeping each step's activation in a dict of lists made by
`setdefault`.
`receiver`: a queue attribute refilled with its graph by a module whose methods call
their receiver `this`, not `self`.
`deque`: each step's loss appended to an unbounded `collections.deque`.
`pairs`: each step's `(loss, output)` pair appended to a list."""
import sys
from collections import deque

import torch
from torch import nn

torch.manual_seed(0)


class Queued(nn.Module):
    def __init__(self):
        super().__init__()
        self.f = nn.Linear(8, 4)
        self.register_buffer("queue", torch.zeros(64, 4))
        self.ptr = 0

    def enqueue(self, keys):
        self.queue[self.ptr:self.ptr + keys.size(0)] = keys  # fed here
        self.ptr = (self.ptr + keys.size(0)) % 64

    def forward(self, x):
        q = self.f(x)
        negatives = q @ self.queue.clone().detach().t()
        self.enqueue(q)
        return q.pow(2).mean() + negatives.mean()


class ThisQueued(nn.Module):
    def __init__(this):
        super().__init__()
        this.f = nn.Linear(8, 4)
        this.queue = torch.zeros(64, 4)

    def forward(this, x):
        q = this.f(x)
        negatives = q @ this.queue.detach().t()
        this.queue = torch.cat([q, this.queue])[:64]  # refilled here, q not detached
        return q.pow(2).mean() + negatives.mean()


acts = {}


def keep(module, inputs, output):
    acts.setdefault("history", []).append(output)  # kept here


if sys.argv[1] in ("queue", "receiver"):
    model = Queued() if sys.argv[1] == "queue" else ThisQueued()
    batch = lambda: torch.randn(8, 8)  # noqa: E731
    loss_of = lambda out: out  # noqa: E731
else:
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))
    if sys.argv[1] == "hook":
        model[0].register_forward_hook(keep)
    batch = lambda: torch.randn(8, 10)  # noqa: E731
    loss_of = lambda out: out.pow(2).mean()  # noqa: E731
opt = torch.optim.SGD(model.parameters(), lr=0.01)
recent, pairs = deque(), []
for step in range(40):
    out = model(batch())
    loss = loss_of(out)
    if sys.argv[1] == "deque":
        recent.append(loss)  # kept in a deque
    elif sys.argv[1] == "pairs":
        pairs.append((loss, out))  # kept in pairs
    opt.zero_grad()
    loss.backward()
    opt.step()
print("done")
