import torch.nn.functional as F

from data import get_loaders, get_ordered_loaders
from wrapped import build


def fit(model, opt, train_set, val_set, epochs):
    loaders = get_loaders(train_set, val_set)  # expect: TL302
    for epoch in range(epochs):
        model.train()
        for x, y in loaders["train"]:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()


def fit_built(model, opt, cfg, train_set, val_set, epochs):
    loaders = build(cfg, train_set, val_set)  # expect: TL302
    for epoch in range(epochs):
        for x, y in loaders["train"]:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()


def fit_ordered(model, opt, train_set, epochs):
    loaders = get_ordered_loaders(train_set)
    for epoch in range(epochs):
        for x, y in loaders["train"]:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
