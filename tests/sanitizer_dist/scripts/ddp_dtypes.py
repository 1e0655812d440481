"""DDP (gloo) on a small sequence classifier in the precision a flag picks; each rank
writes its losses and final weights to losses.rank<r>.txt in the working folder.

    --dtype float64                 the model and the data in float64
    --bf16                          the forward under CPU bfloat16 autocast
    --nan-rank R --nan-step K       rank R's batch at step K holds a NaN
"""
import argparse

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class Classifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Linear(6, 16)
        self.encoder = nn.TransformerEncoderLayer(16, nhead=2, dim_feedforward=32, dropout=0.1, batch_first=True)
        self.norm = nn.LayerNorm(16)
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        return self.head(self.norm(self.encoder(self.embed(x)).mean(dim=1)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--bf16", action="store_true")
    parser.add_argument("--nan-rank", type=int, default=-1)
    parser.add_argument("--nan-step", type=int, default=-1)
    args = parser.parse_args()
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    dtype = getattr(torch, args.dtype)
    torch.manual_seed(0)
    model = Classifier().to(dtype)
    ddp = DistributedDataParallel(model)
    optimizer = torch.optim.AdamW(ddp.parameters(), lr=3e-3)
    generator = torch.Generator().manual_seed(1)
    x_all = torch.randn(64, 5, 6, generator=generator).to(dtype)
    y_all = (x_all.sum(dim=(1, 2)) > 0).long() + (x_all[:, 0, 0] > 1).long()
    data = TensorDataset(x_all, y_all)
    sampler = DistributedSampler(data, seed=3)
    loader = DataLoader(data, batch_size=8, sampler=sampler)
    step = 0
    with open(f"losses.rank{rank}.txt", "w") as log:
        for epoch in range(2):
            sampler.set_epoch(epoch)
            for x, y in loader:
                step += 1
                if rank == args.nan_rank and step == args.nan_step:
                    x = x.clone()
                    x[0, 1, 2] = float("nan")
                with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
                    loss = F.cross_entropy(ddp(x), y)
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(ddp.parameters(), 1.0)
                optimizer.step()
                print(f"step {step} loss {loss.item()!r}", file=log)
        print("weights", [p.detach().double().sum().item() for p in model.parameters()], file=log)
    # both ranks done before the group goes: without it, a bf16 run's rank aborted at
    # exit now and then ("terminate called without an active exception"), plain or not
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
