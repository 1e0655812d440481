"""The epoch loop: after the first evaluation, training goes on in eval mode."""
import torch

from engine import evaluate, train_one_epoch


def main(model, train_loader, val_loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = torch.nn.CrossEntropyLoss()
    model.train()
    for epoch in range(epochs):
        train_one_epoch(model, train_loader, optimizer, criterion)
        accuracy = evaluate(model, val_loader)  # expect: TL405
        print(epoch, accuracy)
