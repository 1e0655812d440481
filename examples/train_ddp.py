"""Multi-GPU training with DistributedDataParallel, launched by torchrun
(with a bug to find)."""

import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def main() -> None:
    dist.init_process_group(backend="nccl" if torch.cuda.is_available() else "gloo")
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    device = torch.device(f"cuda:{local_rank}" if torch.cuda.is_available() else "cpu")
    data = TensorDataset(torch.randn(4096, 32), torch.randn(4096, 1))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=128, sampler=sampler)
    model = DDP(torch.nn.Linear(32, 1).to(device))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    for epoch in range(10):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad(set_to_none=True)
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
        if dist.get_rank() == 0:
            print(f"epoch {epoch}: loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
