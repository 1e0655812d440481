"""The same engine used as it should be: each epoch starts in train mode."""
import torch

from engine import (
    evaluate,
    evaluate_and_restore,
    train_one_epoch,
    train_one_epoch_in_train_mode,
    train_with_periodic_validation,
)


def setup(model):
    return torch.optim.SGD(model.parameters(), lr=0.1), torch.nn.CrossEntropyLoss()


def main(model, train_loader, val_loader, epochs):
    optimizer, criterion = setup(model)
    for epoch in range(epochs):
        model.train()
        train_one_epoch(model, train_loader, optimizer, criterion)
        evaluate(model, val_loader)


def with_helpers(model, train_loader, val_loader, epochs):
    optimizer, criterion = setup(model)
    for epoch in range(epochs):
        train_one_epoch_in_train_mode(model, train_loader, optimizer, criterion)
        evaluate(model, val_loader)


def restoring_evaluation(model, train_loader, val_loader, epochs):
    optimizer, criterion = setup(model)
    model.train()
    for epoch in range(epochs):
        train_one_epoch(model, train_loader, optimizer, criterion)
        evaluate_and_restore(model, val_loader)


def final_test(model, train_loader, test_loader, epochs):
    optimizer, criterion = setup(model)
    model.train()
    for epoch in range(epochs):
        train_one_epoch(model, train_loader, optimizer, criterion)
    return evaluate(model, test_loader)


def linear_probe(backbone, head, train_loader, val_loader, epochs):
    """The backbone is frozen (its class runs it without gradients): evaluating it is harmless."""
    optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
    criterion = torch.nn.CrossEntropyLoss()
    head.train()
    for epoch in range(epochs):
        for images, targets in train_loader:
            loss = criterion(head(backbone(images)), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        evaluate(backbone, val_loader)


def fine_tune(model, train_loader, epochs):
    """The engine validates inside its epoch and restores train mode itself."""
    optimizer, criterion = setup(model)
    for epoch in range(epochs):
        for images, targets in train_loader:
            loss = criterion(model(images), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        train_with_periodic_validation(model, train_loader, optimizer, criterion)
