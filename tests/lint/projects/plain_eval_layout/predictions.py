"""Evaluation loops that run the model they are handed through a helper of
their own module."""
import torch


def predict(model, x):
    return model(x).softmax(-1)


@torch.no_grad()
def predict_quietly(model, x):
    return model(x).softmax(-1)


def count_parameters(model, x):
    """Reads the model's parameters: runs no forward."""
    return sum(p.numel() for p in model.parameters()) + len(x)


def evaluate(model, loader):
    correct = 0
    for x, y in loader:
        correct += (predict(model, x).argmax(1) == y).sum().item()
    return correct


def evaluate_quietly(model, loader):
    correct = 0
    for x, y in loader:
        correct += (predict_quietly(model, x).argmax(1) == y).sum().item()
    return correct


def sizes(model, loader):
    found = []
    for x, _ in loader:
        found.append(count_parameters(model, x))
    return found
