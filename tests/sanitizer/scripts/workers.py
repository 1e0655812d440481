"""DataLoader with num_workers=2 started by spawn: the dataset class lives in __main__ and
must be picklable exactly as under plain python. Before training, a process Pool
(library workers, not training: nothing to watch there) scans the dataset."""
import multiprocessing
import pickle
import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __len__(self) -> int:
        return 32

    def __getitem__(self, index):
        x = torch.tensor([float(index % 5), 1.0])
        return x, x.sum(dim=0, keepdim=True) ** 2


def largest_target(index: int) -> float:
    return float(Squares()[index][1])


def main() -> None:
    torch.manual_seed(0)
    context = sys.argv[1] if len(sys.argv) > 1 else "spawn"
    assert pickle.loads(pickle.dumps(Squares())).__class__.__name__ == "Squares"
    with multiprocessing.get_context(context).Pool(2) as pool:
        assert max(pool.map(largest_target, range(32))) == 25.0
    loader = DataLoader(Squares(), batch_size=8, num_workers=2, multiprocessing_context=context)
    model = nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    for epoch in range(2):
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    print("trained", context, [round(v, 6) for v in model.weight.flatten().tolist()])


if __name__ == "__main__":
    main()
