"""Hogwild training: the model's parameters live in shared memory and several
child processes (spawned) train it at once, each with its own optimizer; the
parent evaluates at the end.

    --launcher process|subclass|spawn   mp.Process children given a target (default), a
                               Process subclass that overrides run(), or mp.spawn
    --start-method spawn|fork  how Process children start (default spawn)
    --nan-child C --nan-step K child C feeds a batch with a NaN into `features` at its step K
"""
import argparse

import torch
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch import nn


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(nn.Linear(12, 24), nn.ReLU())
        self.classifier = nn.Linear(24, 4)

    def forward(self, x):
        return F.log_softmax(self.classifier(self.features(x)), dim=1)


def train(child: int, model: Net, nan_child: int, nan_step: int) -> None:
    torch.manual_seed(100 + child)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.5)
    for step in range(1, 16):
        x, y = torch.randn(16, 12), torch.randint(0, 4, (16,))
        if child == nan_child and step == nan_step:
            x[3, 5] = float("nan")
        optimizer.zero_grad()
        loss = F.nll_loss(model(x), y)
        loss.backward()
        optimizer.step()
    print(f"child {child} done", flush=True)


def spawned(index: int, model: Net, nan_child: int, nan_step: int) -> None:
    train(index + 1, model, nan_child, nan_step)


class Trainer(mp.Process):
    """A child that trains in its own run(): no target."""

    def __init__(self, child: int, model: Net, nan_child: int, nan_step: int) -> None:
        super().__init__()
        self.child, self.model, self.nan_child, self.nan_step = child, model, nan_child, nan_step

    def run(self) -> None:
        train(self.child, self.model, self.nan_child, self.nan_step)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--launcher", choices=("process", "subclass", "spawn"), default="process")
    parser.add_argument("--start-method", choices=("spawn", "fork"), default="spawn")
    parser.add_argument("--nan-child", type=int, default=-1)
    parser.add_argument("--nan-step", type=int, default=-1)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = Net()
    model.share_memory()
    if args.launcher == "spawn":
        mp.spawn(spawned, args=(model, args.nan_child, args.nan_step), nprocs=2, join=True)
    else:
        mp.set_start_method(args.start_method, force=True)
        if args.launcher == "subclass":
            children = [Trainer(child, model, args.nan_child, args.nan_step) for child in (1, 2)]
        else:
            children = [mp.Process(target=train, args=(child, model, args.nan_child, args.nan_step))
                        for child in (1, 2)]
        for process in children:
            process.start()
        for process in children:
            process.join()
    model.eval()
    with torch.no_grad():
        x, y = torch.randn(64, 12), torch.randint(0, 4, (64,))
        print(f"test loss {F.nll_loss(model(x), y).item():.3f}")


if __name__ == "__main__":
    main()
