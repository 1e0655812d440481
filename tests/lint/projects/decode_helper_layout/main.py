import torch

from model import Translator


def greedy_decode(model, x, steps):
    memory = model.encode(x)
    ys = x
    for _ in range(steps):
        out = model.decode(ys, memory)
        ys = torch.cat([ys, out], 0)
    return ys


def beam_decode(model, x, steps):
    memory = model.encode(x)
    ys = x
    for _ in range(steps):
        ys = torch.cat([ys, model.decode(ys, memory)], 0)
    return ys


def sample(model, x, steps):
    ys = x
    for _ in range(steps):
        ys = torch.cat([ys, model.decode(ys, x)], 0)  # expect: TL406
    return ys


def translate(inputs):
    # one root: the loop here runs the helper's forwards, its own loop included
    model = Translator()
    model.eval()
    for x in inputs:
        print(greedy_decode(model, x, 5))  # expect: TL406


def translate_both(inputs):
    model = Translator()
    model.eval()
    for x in inputs:
        print(beam_decode(model, x, 5))  # expect: TL406
    with torch.no_grad():
        for x in inputs:
            print(beam_decode(model, x, 5))


def draw(x):
    # the helper's own loop is the only evaluation loop: reported where it is
    model = Translator()
    model.eval()
    return sample(model, x, 5)
