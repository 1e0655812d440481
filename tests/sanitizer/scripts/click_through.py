"""Click-through prediction on made-up ad impressions: three categorical fields (site,
ad, hour) looked up in embedding tables, dense features through a ReLU layer, the two
joined and scored by a ReLU MLP, a sigmoid, binary cross-entropy on the probability
(the classic CTR layout), plain SGD.

`--lr 1000` (a rate typed with three zeros too many): the first update throws every
weight far out, the sigmoid saturates from step 2 on and no gradient reaches anything
again, while the loss sits far above chance. Expected: divergence at
step 2, and the gradient collapse after it dated from step 2 (step 1's was not zero).
The default rate trains."""
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

FIELDS = (200, 50, 24)  # sites, ads, hours of the day


def impressions(count: int, generator: torch.Generator) -> TensorDataset:
    fields = torch.stack([torch.randint(0, size, (count,), generator=generator) for size in FIELDS], dim=1)
    dense = torch.randn(count, 6, generator=generator)
    site_bias = torch.randn(FIELDS[0], generator=generator)
    logit = site_bias[fields[:, 0]] + 0.8 * dense[:, 0] - 0.5 * (fields[:, 2] >= 18).float() - 1.0
    clicked = (torch.rand(count, generator=generator) < torch.sigmoid(logit)).float()
    return TensorDataset(fields, dense, clicked)


class ClickModel(nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.tables = nn.ModuleList(nn.Embedding(size, dim) for size in FIELDS)
        self.bottom = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, dim), nn.ReLU())
        self.top = nn.Sequential(nn.Linear(dim * (len(FIELDS) + 1), 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, fields: torch.Tensor, dense: torch.Tensor) -> torch.Tensor:
        looked_up = [table(fields[:, i]) for i, table in enumerate(self.tables)]
        return torch.sigmoid(self.top(torch.cat([self.bottom(dense), *looked_up], dim=1)).squeeze(1))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    torch.manual_seed(0)
    loader = DataLoader(impressions(2048, torch.Generator().manual_seed(1)), batch_size=64, shuffle=True)
    model = ClickModel()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    criterion = nn.BCELoss()
    for epoch in range(args.epochs):
        total = 0.0
        for fields, dense, clicked in loader:
            loss = criterion(model(fields, dense), clicked)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item()
        print(f"epoch {epoch}: log loss {total / len(loader):.4f}")


if __name__ == "__main__":
    main()
