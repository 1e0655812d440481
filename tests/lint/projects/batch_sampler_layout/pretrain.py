import torch
from data import create_dataloader


def pretrain(model, optimizer, train_dataset, val_dataset, epochs):
    train_loader, _ = create_dataloader(train_dataset, val_dataset, 32)  # expect: TL302
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
