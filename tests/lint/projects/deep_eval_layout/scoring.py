"""Evaluation loops that run the model they are handed two calls down:
score -> run_batch -> predict(model, x). The quiet ones' innermost helper
runs the model without grad, needs its graph, switches its mode or runs a copy of it."""
import copy

import torch


def predict(model, x):
    return model(x)


def run_batch(model, x):
    return predict(model, x).argmax(-1)


def score(model, loader):
    correct = 0
    for x, y in loader:
        correct = correct + (run_batch(model, x) == y).sum()
    return correct


@torch.no_grad()
def predict_quietly(model, x):
    return model(x)


def run_quietly(model, x):
    return predict_quietly(model, x).argmax(-1)


def score_quietly(model, loader):
    correct = 0
    for x, y in loader:
        correct = correct + (run_quietly(model, x) == y).sum()
    return correct


def predict_inside(model, x):
    with torch.no_grad():
        return model(x)


def run_inside(model, x):
    return predict_inside(model, x)


def score_inside(model, loader):
    total = 0
    for x in loader:
        total = total + run_inside(model, x).sum()
    return total


def saliency(model, x):
    x.requires_grad_(True)
    model(x).sum().backward()
    return x.grad


def run_saliency(model, x):
    return saliency(model, x)


def explain(model, loader):
    maps = []
    for x in loader:
        maps.append(run_saliency(model, x))
    return maps


def predict_trained(model, x):
    model.train()
    return model(x)


def run_trained(model, x):
    return predict_trained(model, x)


def score_trained(model, loader):
    total = 0
    for x in loader:
        total = total + run_trained(model, x).sum()
    return total


def predict_copy(model, x):
    model = copy.deepcopy(model)
    return model(x)


def run_copy(model, x):
    return predict_copy(model, x)


def score_copy(model, loader):
    total = 0
    for x in loader:
        total = total + run_copy(model, x).sum()
    return total
