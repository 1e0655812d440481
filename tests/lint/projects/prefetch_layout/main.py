import torch

from dataloaders import get_epoch_loader, get_train_loader


def train(model, dataset, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train_loader, steps = get_train_loader(dataset, 64)  # expect: TL302
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()


def train_with_epochs(model, dataset, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train_loader, steps = get_epoch_loader(dataset, 64)
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
