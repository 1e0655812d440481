"""A small CNN with batch norm and dropout, trained for a few epochs with a
validation pass after each. `--bug`: `model.train()` is called once before the
loop, so after the first validation (`model.eval()`) every later epoch trains
in eval mode. Expected: train_in_eval_mode at the first step of epoch 2 (step 9).
`--frozen-bn`: the model trains in train mode with its batch norms frozen on
purpose (a fine-tuning habit): nothing to report; with `--bug`, only the
dropout's eval mode is a mistake. `--functional`: a model
without dropout or batch-norm layers, whose own code applies dropout as a
function, `F.dropout(h, p, training=self.training)` (graph networks' habit).
`--grad-validation`: the validation pass runs with gradients on (no
`torch.no_grad()`, an old habit): the first model call of each step's window is
then the validation's, and the training call of the step comes after it."""
import argparse
import contextlib

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

STEPS_PER_EPOCH = 8


def stripes(n: int, generator: torch.Generator) -> TensorDataset:
    """Images of horizontal (class 0) or vertical (class 1) stripes, with noise."""
    labels = torch.randint(0, 2, (n,), generator=generator)
    phase = torch.arange(12).float().mul(1.3).sin()
    horizontal = phase.view(1, 12, 1).expand(n, 12, 12)
    images = torch.where(labels.view(n, 1, 1).bool(), horizontal.transpose(1, 2), horizontal)
    images = images + 0.8 * torch.randn(n, 12, 12, generator=generator)
    return TensorDataset(images.unsqueeze(1), labels)


class StripeNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                                      nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16),
                                      nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.dropout = nn.Dropout(0.3)
        self.classifier = nn.Linear(16, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.dropout(self.features(x).flatten(1)))


class FunctionalStripeNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(16, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.dropout(self.features(x).flatten(1), 0.3, training=self.training)
        return self.classifier(h)


def evaluate(model: nn.Module, loader: DataLoader, criterion: nn.Module, grad: bool) -> float:
    model.eval()
    total, batches = 0.0, 0
    with contextlib.nullcontext() if grad else torch.no_grad():
        for images, labels in loader:
            total += criterion(model(images), labels).item()
            batches += 1
    return total / batches


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bug", action="store_true")
    parser.add_argument("--frozen-bn", action="store_true")
    parser.add_argument("--functional", action="store_true")
    parser.add_argument("--grad-validation", action="store_true")
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    train_loader = DataLoader(stripes(32 * STEPS_PER_EPOCH, generator), batch_size=32, shuffle=True)
    val_loader = DataLoader(stripes(128, generator), batch_size=64)
    model = FunctionalStripeNet() if args.functional else StripeNet()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    model.train()
    for epoch in range(1, args.epochs + 1):
        if not args.bug:
            model.train()
        if args.frozen_bn:
            for module in model.modules():
                if isinstance(module, nn.BatchNorm2d):
                    module.eval()
        for images, labels in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(images), labels)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: train {loss.item():.3f} val {evaluate(model, val_loader, criterion, args.grad_validation):.3f}")


if __name__ == "__main__":
    main()
