import torch.nn.functional as F

from data import make_loaders, make_ordered_loaders


def fit(model, opt, train_set, val_set, epochs):
    loaders = make_loaders(train_set, val_set, 32)
    for epoch in range(epochs):
        loaders["train"].sampler.set_epoch(epoch)
        model.train()
        for x, y in loaders["train"]:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()


def fit_each(model, opt, train_set, val_set, epochs):
    loaders = make_loaders(train_set, val_set, 32)
    for epoch in range(epochs):
        for loader in loaders.values():
            loader.sampler.set_epoch(epoch)
        model.train()
        for x, y in loaders["train"]:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()


def fit_ordered(model, opt, train_set, epochs):
    loaders = make_ordered_loaders(train_set, 32)
    for epoch in range(epochs):
        model.train()
        for x, y in loaders["train"]:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
