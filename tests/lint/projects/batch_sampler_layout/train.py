import torch
from data import create_dataloader


def main(model, optimizer, train_dataset, val_dataset, epochs):
    train_loader, val_loader = create_dataloader(train_dataset, val_dataset, 32)
    for epoch in range(epochs):
        train_loader.batch_sampler.sampler.set_epoch(epoch)
        for x, y in train_loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
