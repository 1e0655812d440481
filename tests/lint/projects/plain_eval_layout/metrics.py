"""Evaluation helpers written with none of the words that tell other facts of
a summary (no accumulation, no mode switch): their loops still run the model
they are handed, with grad on unless the caller turned it off."""


def accuracy(model, loader):
    correct = 0
    for x, y in loader:
        correct = correct + (model(x).argmax(1) == y).sum().item()
    return correct


def first_logits(model, loader):
    """One forward, in no loop of its own: no evaluation loop."""
    return model(next(iter(loader))[0])
