"""The innermost helpers of the evaluation loops of scoring.py, in a module of
their own. The quiet ones run the model without grad, under a grad mode of their
own, need its graph, switch its mode or run a copy of it."""
import copy

import torch


def predict(model, x):
    return model(x)


@torch.no_grad()
def predict_quietly(model, x):
    return model(x)


def predict_inside(model, x):
    with torch.no_grad():
        return model(x)


def saliency(model, x):
    x.requires_grad_(True)
    model(x).sum().backward()
    return x.grad


def predict_trained(model, x):
    model.train()
    return model(x)


def predict_copy(model, x):
    model = copy.deepcopy(model)
    return model(x)
