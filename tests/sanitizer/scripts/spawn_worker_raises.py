"""`mp.spawn` runs the training function in a worker; with --raise-step K the worker
raises at its step K (a corrupt shard). torch's spawn wrapper catches the worker's
exception, hands its traceback to the parent and exits 1: the worker's own report
must still name the exception and its line. Without the flag: the healthy twin."""
import argparse

import torch
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch import nn


def worker(index: int, raise_step: int) -> None:
    torch.manual_seed(index)
    model = nn.Sequential(nn.Linear(5, 12), nn.ReLU(), nn.Linear(12, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for step in range(1, 7):
        x = torch.randn(10, 5)
        if step == raise_step:
            raise ValueError(f"corrupt shard in worker {index} at step {step}")
        loss = F.mse_loss(model(x), x.sum(1, keepdim=True))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--raise-step", type=int, default=-1)
    args = parser.parse_args()
    mp.spawn(worker, args=(args.raise_step,), nprocs=1)
    print("trained", flush=True)
