"""Evaluation loops whose forward runs four functions down: in this module
(step -> run_batch -> decode -> predict), or across two more (relay_batch ->
relay.outputs -> leaf.predict -> leaf._logits). The quiet ones' chain ends in a
helper that runs the model without grad, enters no_grad on the way, or runs no model."""
import torch

import relay


def predict(model, x):
    return model(x)


def decode(model, x):
    return predict(model, x).argmax(-1)


def run_batch(model, x):
    return decode(model, x)


def step(model, x):
    return run_batch(model, x)


def score(model, loader):
    total = 0
    for x in loader:
        total = total + step(model, x).sum()
    return total


@torch.no_grad()
def predict_quietly(model, x):
    return model(x)


def decode_quietly(model, x):
    return predict_quietly(model, x).argmax(-1)


def run_quietly(model, x):
    return decode_quietly(model, x)


def step_quietly(model, x):
    return run_quietly(model, x)


def score_quietly(model, loader):
    total = 0
    for x in loader:
        total = total + step_quietly(model, x).sum()
    return total


def run_guarded(model, x):
    with torch.no_grad():
        return decode(model, x)


def step_guarded(model, x):
    return run_guarded(model, x)


def score_guarded(model, loader):
    total = 0
    for x in loader:
        total = total + step_guarded(model, x).sum()
    return total


def relay_batch(model, x):
    return relay.outputs(model, x)


def score_relayed(model, loader):
    total = 0
    for x in loader:
        total = total + relay_batch(model, x).sum()
    return total


def relay_quietly(model, x):
    return relay.outputs_quietly(model, x)


def score_relayed_quietly(model, loader):
    total = 0
    for x in loader:
        total = total + relay_quietly(model, x).sum()
    return total


def relay_shapes(model, x):
    return relay.shapes(model, x)


def count_shapes(model, loader):
    total = 0
    for x in loader:
        total = total + relay_shapes(model, x)[0]
    return total
