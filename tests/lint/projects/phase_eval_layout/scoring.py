"""Helpers that run a model over a loader with gradients on, wherever they are called."""


def mean_loss(model, loader):
    total, count = 0.0, 0
    for x, y in loader:
        total += model(x, y).item()
        count += 1
    return total / max(count, 1)


def features_of(model, loader):
    return [model(x) for x, _ in loader]
