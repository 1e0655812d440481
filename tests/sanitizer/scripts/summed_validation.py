"""Digit-style classification written the way the classic MNIST example is:
the training loss is the mean `F.nll_loss`, while the test pass adds up
`F.nll_loss(..., reduction="sum")` per batch and divides by the dataset size at
the end. `--criterion module` does the same with `nn.NLLLoss(reduction="sum")`.
A healthy run: nothing to report. `--overfit`: 48 training images with random
labels, memorised by a wide network: overfitting, even though the test losses
are sums."""
import argparse

import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset


def glyphs(n: int, random_labels: bool, seed: int) -> TensorDataset:
    """10 fixed 10x10 glyphs, shifted by a pixel and noised."""
    prototypes = (torch.rand(10, 10, 10, generator=torch.Generator().manual_seed(11)) > 0.6).float()
    generator = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, 10, (n,), generator=generator)
    shifts = torch.randint(-1, 2, (n,), generator=generator)
    images = torch.stack([prototypes[label].roll(int(shift), dims=1) for label, shift in zip(labels, shifts)])
    images = images + 1.2 * torch.randn(n, 10, 10, generator=generator)
    if random_labels:
        labels = torch.randint(0, 10, (n,), generator=generator)
    return TensorDataset(images.unsqueeze(1), labels)


class Net(nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, 16, 3)
        self.dropout = nn.Dropout(0.25)
        self.fc1 = nn.Linear(16 * 4 * 4, width)
        self.fc2 = nn.Linear(width, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(F.relu(self.conv(x)), 2)
        x = self.dropout(torch.flatten(x, 1))
        return F.log_softmax(self.fc2(F.relu(self.fc1(x))), dim=1)


def train(model: nn.Module, loader: DataLoader, optimizer: torch.optim.Optimizer) -> None:
    model.train()
    for data, target in loader:
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()


def test(model: nn.Module, loader: DataLoader, summed: nn.Module | None) -> float:
    model.eval()
    test_loss, correct = 0.0, 0
    with torch.no_grad():
        for data, target in loader:
            output = model(data)
            if summed is None:
                test_loss += F.nll_loss(output, target, reduction="sum").item()
            else:
                test_loss += summed(output, target).item()
            correct += int((output.argmax(dim=1) == target).sum())
    test_loss /= len(loader.dataset)
    print(f"test: average loss {test_loss:.4f}, accuracy {correct}/{len(loader.dataset)}")
    return test_loss


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--criterion", default="functional", choices=["functional", "module"])
    parser.add_argument("--overfit", action="store_true")
    parser.add_argument("--epochs", type=int, default=14)
    args = parser.parse_args()
    torch.manual_seed(0)
    train_set = glyphs(48 if args.overfit else 640, args.overfit, seed=1)
    test_set = glyphs(200, args.overfit, seed=2)
    train_loader = DataLoader(train_set, batch_size=16 if args.overfit else 64, shuffle=True)
    test_loader = DataLoader(test_set, batch_size=100)
    model = Net(256 if args.overfit else 64)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    summed = nn.NLLLoss(reduction="sum") if args.criterion == "module" else None
    for _ in range(40 if args.overfit else args.epochs):
        train(model, train_loader, optimizer)
        test(model, test_loader, summed)


if __name__ == "__main__":
    main()
