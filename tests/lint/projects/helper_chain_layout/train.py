import torch

import relay
from scoring import count_shapes, score, score_guarded, score_quietly, score_relayed, score_relayed_quietly


def predict(model, x):
    return model(x)


def decode(model, x):
    return predict(model, x).argmax(-1)


def run_batch(model, x):
    return decode(model, x)


def step(model, x):
    return run_batch(model, x)


def main(model, loader, optimizer):
    for epoch in range(3):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        model.eval()
        score(model, loader)  # expect: TL406


def relayed(model, loader):
    model.eval()
    score_relayed(model, loader)  # expect: TL406


def quiet(model, loader):
    model.eval()
    score_quietly(model, loader)
    score_relayed_quietly(model, loader)


def guarded(model, loader):
    model.eval()
    score_guarded(model, loader)


def counted(model, loader):
    model.eval()
    count_shapes(model, loader)


def chained(model, loader):
    model.eval()
    for x in loader:
        step(model, x)  # expect: TL406


def relayed_here(model, loader):
    model.eval()
    for x in loader:
        relay.outputs(model, x)  # expect: TL406


def relayed_here_quietly(model, loader):
    model.eval()
    for x in loader:
        relay.outputs_quietly(model, x)
        relay.shapes(model, x)


def explained(model, loader):
    model.eval()
    for x in loader:
        step(model, x).sum().backward()
        relay.outputs(model, x).sum().backward()
