"""Evaluation functions that put the model in eval mode themselves and run it
through a helper of another module: infer.py, which has nothing else to summarize,
or quiet.py, whose helpers run it without grad."""
import torch

import infer
import quiet


def evaluate(model, loader):
    model.eval()
    outputs = []
    for x in loader:
        outputs.append(infer.predict(model, x))  # expect: TL406
    return outputs


def evaluate_quietly(model, loader):
    model.eval()
    outputs = []
    for x in loader:
        outputs.append(quiet.predict(model, x))
    return outputs


def evaluate_guarded(model, loader):
    model.eval()
    outputs = []
    with torch.no_grad():
        for x in loader:
            outputs.append(infer.predict(model, x))
    return outputs


def validate(model, loader):
    """Its own script runs it under no_grad (RAFT's validate): reported where it is
    called with grad on."""
    model.eval()
    total = 0
    for x in loader:
        total = total + infer.predict(model, x).sum()
    return total


def validate_quietly(model, loader):
    model.eval()
    total = 0
    for x in loader:
        total = total + quiet.predict(model, x).sum()
    return total


if __name__ == "__main__":
    with torch.no_grad():
        validate(torch.load("model.pt"), torch.load("loader.pt"))
        validate_quietly(torch.load("model.pt"), torch.load("loader.pt"))
