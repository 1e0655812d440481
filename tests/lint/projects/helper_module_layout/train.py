import torch

import infer
import quiet
from infer import predict, shape_of
from scoring import validate, validate_quietly


def main(model, loader, optimizer):
    for epoch in range(3):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        model.eval()
        for x, y in loader:
            predict(model, x)  # expect: TL406


def chained(model, loader):
    model.eval()
    for x in loader:
        infer.logits(model, x)  # expect: TL406


def quietly(model, loader):
    model.eval()
    for x in loader:
        quiet.predict(model, x)
        quiet.predict_fast(model, x)


def guarded(model, loader):
    model.eval()
    with torch.no_grad():
        for x in loader:
            predict(model, x)


def explained(model, loader):
    model.eval()
    for x in loader:
        predict(model, x).sum().backward()


def shapes(model, loader):
    model.eval()
    for x in loader:
        shape_of(model, x)


def validated(model, loader):
    validate(model, loader)  # expect: TL406


def validated_quietly(model, loader):
    validate_quietly(model, loader)
    with torch.no_grad():
        validate(model, loader)


def run_batch(model, x):
    return infer.logits(model, x).argmax(-1)


def run_quietly(model, x):
    return quiet.predict(model, x).argmax(-1)


def batched(model, loader):
    model.eval()
    for x in loader:
        run_batch(model, x)  # expect: TL406
        run_quietly(model, x)
