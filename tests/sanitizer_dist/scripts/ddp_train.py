"""A tiny DDP run on gloo; flags inject one fault on one rank.

    --nan-rank R --nan-step K      rank R feeds a NaN through `body.1` at step K
    --alter-rank R --alter-step K  rank R changes `head.weight` in place after step K-1
    --crash-rank R --crash-step K  rank R raises before step K
    --kill-rank R --kill-step K    rank R kills itself (SIGKILL) before step K
    --no-set-epoch                 never call sampler.set_epoch
    --compile                      train through torch.compile(DDP(model)) (aot_eager backend)
    --steps N --epochs E
"""
import argparse
import os
import signal

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class Scale(nn.Module):
    """Multiplies by a constant: the test's way to put a NaN in one module's output."""

    def __init__(self) -> None:
        super().__init__()
        self.factor = 1.0

    def forward(self, x):
        return x * self.factor


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--nan-rank", type=int, default=-1)
    parser.add_argument("--nan-step", type=int, default=-1)
    parser.add_argument("--alter-rank", type=int, default=-1)
    parser.add_argument("--alter-step", type=int, default=-1)
    parser.add_argument("--crash-rank", type=int, default=-1)
    parser.add_argument("--crash-step", type=int, default=-1)
    parser.add_argument("--kill-rank", type=int, default=-1)
    parser.add_argument("--kill-step", type=int, default=-1)
    parser.add_argument("--no-set-epoch", action="store_true")
    parser.add_argument("--compile", action="store_true")
    args = parser.parse_args()

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), Scale(), nn.Tanh(), nn.Linear(8, 1))
    ddp = DistributedDataParallel(model)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.05)
    if args.compile:
        ddp = torch.compile(ddp, backend="aot_eager")
    data = TensorDataset(torch.randn(64, 4), torch.randn(64, 1))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=8, sampler=sampler)

    step = 0
    for epoch in range(args.epochs):
        if not args.no_set_epoch:
            sampler.set_epoch(epoch)
        for x, y in loader:
            step += 1  # the step the sanitizer is accumulating: 1, 2, ...
            if rank == args.crash_rank and step == args.crash_step:
                raise RuntimeError(f"rank {rank} crashed at step {step}")
            if rank == args.kill_rank and step == args.kill_step:
                os.kill(os.getpid(), signal.SIGKILL)
            if rank == args.alter_rank and step == args.alter_step:
                with torch.no_grad():
                    model[3].weight.add_(0.5)
            model[1].factor = float("nan") if (rank == args.nan_rank and step == args.nan_step) else 1.0
            loss = nn.functional.mse_loss(ddp(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    print(f"rank {rank} done after {step} steps", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
