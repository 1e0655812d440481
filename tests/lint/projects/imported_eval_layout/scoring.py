"""Evaluation loops that run the model they are handed two calls down, the
second in another module: score -> run_batch -> predictors.predict(model, x); or
one call down, in the other module: score_directly -> predictors.predict(model, x)."""
import torch

from predictors import predict, predict_copy, predict_inside, predict_quietly, predict_trained, saliency


def run_batch(model, x):
    return predict(model, x).argmax(-1)


def score(model, loader):
    correct = 0
    for x, y in loader:
        correct = correct + (run_batch(model, x) == y).sum()
    return correct


def run_quietly(model, x):
    return predict_quietly(model, x).argmax(-1)


def score_quietly(model, loader):
    correct = 0
    for x, y in loader:
        correct = correct + (run_quietly(model, x) == y).sum()
    return correct


def run_inside(model, x):
    return predict_inside(model, x)


def score_inside(model, loader):
    total = 0
    for x in loader:
        total = total + run_inside(model, x).sum()
    return total


def run_saliency(model, x):
    return saliency(model, x)


def explain(model, loader):
    maps = []
    for x in loader:
        maps.append(run_saliency(model, x))
    return maps


def run_trained(model, x):
    return predict_trained(model, x)


def score_trained(model, loader):
    total = 0
    for x in loader:
        total = total + run_trained(model, x).sum()
    return total


def run_copy(model, x):
    return predict_copy(model, x)


def score_copy(model, loader):
    total = 0
    for x in loader:
        total = total + run_copy(model, x).sum()
    return total


def run_under_grad_mode(model, x):
    with torch.no_grad():
        return predict(model, x)


def score_under_grad_mode(model, loader):
    total = 0
    for x in loader:
        total = total + run_under_grad_mode(model, x).sum()
    return total


def score_directly(model, loader):
    correct = 0
    for x, y in loader:
        correct = correct + (predict(model, x).argmax(-1) == y).sum()
    return correct


def score_directly_quietly(model, loader):
    correct = 0
    for x, y in loader:
        correct = correct + (predict_quietly(model, x).argmax(-1) == y).sum()
    return correct
