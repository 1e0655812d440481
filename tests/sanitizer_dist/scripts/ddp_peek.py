"""DDP training laid out like the usual tutorial Trainer: each epoch first peeks at
one batch (`next(iter(loader))`) to print the batch size, then calls set_epoch
and trains. gloo on CPU.

    --no-set-epoch   never call set_epoch (the peek stays)
    --epochs E       (default 3); 64 samples, 2 ranks, batch 8: 4 steps per epoch
"""
import argparse

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class Trainer:
    def __init__(self, model: nn.Module, loader: DataLoader, optimizer: torch.optim.Optimizer,
                 set_epoch: bool) -> None:
        self.rank = dist.get_rank()
        self.model = DDP(model)
        self.loader = loader
        self.optimizer = optimizer
        self.set_epoch = set_epoch

    def _run_batch(self, source: torch.Tensor, targets: torch.Tensor) -> None:
        self.optimizer.zero_grad()
        loss = F.cross_entropy(self.model(source), targets)
        loss.backward()
        self.optimizer.step()

    def _run_epoch(self, epoch: int) -> None:
        batch_size = len(next(iter(self.loader))[0])
        print(f"[rank{self.rank}] epoch {epoch} | batch size {batch_size} | steps {len(self.loader)}", flush=True)
        if self.set_epoch:
            self.loader.sampler.set_epoch(epoch)
        for source, targets in self.loader:
            self._run_batch(source, targets)

    def train(self, epochs: int) -> None:
        for epoch in range(epochs):
            self._run_epoch(epoch)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--no-set-epoch", action="store_true")
    args = parser.parse_args()
    dist.init_process_group("gloo")
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(64, 20), torch.randint(0, 3, (64,)))
    loader = DataLoader(data, batch_size=8, shuffle=False, sampler=DistributedSampler(data))
    model = nn.Sequential(nn.Linear(20, 16), nn.ReLU(), nn.Linear(16, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
    Trainer(model, loader, optimizer, set_epoch=not args.no_set_epoch).train(args.epochs)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
