"""A training loop that validates through an evaluation function of another module."""
import torch

from metrics import accuracy, first_logits


def train(model, loader, val_loader, optimizer, criterion, epochs):
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        model.eval()
        print(accuracy(model, val_loader))  # expect: TL406
        print(first_logits(model, val_loader))
        with torch.no_grad():
            print(accuracy(model, val_loader))
