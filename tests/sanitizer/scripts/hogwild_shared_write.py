"""Hogwild with a sibling that breaks the shared weights: two `mp.Process` children
train one model in shared memory. At child 1's step W, between its backward and its
update, child 2 runs its step K; with --nan, child 2's batch at step K holds a NaN, so
its update writes NaN into the weights child 1 is about to update:

    --nan           child 2's batch at step K holds a NaN (without it: the healthy twin)
    --at K          child 2's step (default 3)
    --wait-step W   child 1's step (default 1: before child 1's first update)
"""
import argparse

import torch
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch import nn


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.hidden = nn.Linear(6, 16)
        self.out = nn.Linear(16, 3)

    def forward(self, x):
        return self.out(torch.tanh(self.hidden(x)))


def train(child: int, model: Net, ready, done, nan: bool, at: int, wait_step: int) -> None:
    torch.manual_seed(10 + child)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(1, 9):
        x, y = torch.randn(12, 6), torch.randint(0, 3, (12,))
        if child == 2 and step == at:
            ready.wait(60)
            if nan:
                x[4, 1] = float("nan")
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        if child == 1 and step == wait_step:
            ready.set()
            done.wait(60)
        optimizer.step()
        if child == 2 and step == at:
            done.set()
    print(f"child {child} done", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--nan", action="store_true")
    parser.add_argument("--at", type=int, default=3)
    parser.add_argument("--wait-step", type=int, default=1)
    args = parser.parse_args()
    mp.set_start_method("spawn")
    torch.manual_seed(0)
    model = Net()
    model.share_memory()
    ready, done = mp.Event(), mp.Event()
    children = [mp.Process(target=train, args=(child, model, ready, done, args.nan, args.at, args.wait_step))
                for child in (1, 2)]
    for process in children:
        process.start()
    for process in children:
        process.join()
    print("exit codes", [process.exitcode for process in children])
