"""House-price style regression with Adam and a linear learning-rate warm-up.
`--endless-warmup`: the schedule lacks its `min(1, ...)` cap, so the learning
rate keeps growing after the warm-up: the loss falls for a few epochs, then
climbs steadily for the rest of the run and never becomes NaN. Expected:
divergence while it climbs. The capped schedule converges, with the noise of
small batches."""
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def houses(n: int) -> TensorDataset:
    generator = torch.Generator().manual_seed(5)
    scales = torch.tensor([3.0, 1.0, 1.0, 0.5, 0.5, 2.0, 1.0, 0.2])  # square metres, rooms, age...
    features = torch.randn(n, 8, generator=generator) * scales
    price = features @ torch.linspace(-1.0, 1.5, 8) + 0.5 * torch.randn(n, generator=generator)
    return TensorDataset(features, price.unsqueeze(1))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--endless-warmup", action="store_true")
    parser.add_argument("--epochs", type=int, default=16)
    parser.add_argument("--warmup", type=int, default=20)
    args = parser.parse_args()
    torch.manual_seed(0)
    loader = DataLoader(houses(512), batch_size=32, shuffle=True)
    model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
    if args.endless_warmup:
        warmup = lambda step: (step + 1) / args.warmup  # noqa: E731
    else:
        warmup = lambda step: min(1.0, (step + 1) / args.warmup)  # noqa: E731
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, warmup)
    criterion = nn.MSELoss()
    for epoch in range(args.epochs):
        running = 0.0
        for features, price in loader:
            optimizer.zero_grad()
            loss = criterion(model(features), price)
            loss.backward()
            optimizer.step()
            scheduler.step()
            running += loss.item()
        print(f"epoch {epoch} loss {running / len(loader):.4f}")


if __name__ == "__main__":
    main()
