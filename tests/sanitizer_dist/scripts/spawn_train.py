"""DDP launched by the script itself (`mp.spawn`, no torchrun): the ranks are passed to
`init_process_group`, none is in the environment.

    spawn_train.py PORT [--nan-rank R --nan-step K]   rank R feeds an Inf input at step K
"""
import argparse
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.nn.parallel import DistributedDataParallel

STEPS = 6


def worker(rank: int, world: int, port: int, nan_rank: int, nan_step: int) -> None:
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    model = DistributedDataParallel(nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1)))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    data = torch.Generator().manual_seed(rank)
    for step in range(1, STEPS + 1):
        x = torch.randn(8, 4, generator=data)
        if rank == nan_rank and step == nan_step:
            x[0, 0] = float("inf")
        loss = nn.functional.mse_loss(model(x), x[:, :1])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--nan-rank", type=int, default=-1)
    parser.add_argument("--nan-step", type=int, default=-1)
    args = parser.parse_args()
    mp.spawn(worker, args=(2, args.port, args.nan_rank, args.nan_step), nprocs=2, join=True)
