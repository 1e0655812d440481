"""torch.multiprocessing.spawn: children train and report back."""
import torch
import torch.multiprocessing as mp
from torch import nn


def train(rank: int, results) -> None:
    torch.manual_seed(rank)
    model = nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        model(torch.randn(8, 3)).pow(2).mean().backward()
        opt.step()
    results[rank] = float(model.weight.sum())


if __name__ == "__main__":
    with mp.Manager() as manager:
        results = manager.dict()
        mp.spawn(train, args=(results,), nprocs=2, join=True)
        print("children", sorted(results.keys()))
