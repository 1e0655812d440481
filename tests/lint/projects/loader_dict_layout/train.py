import torch.nn.functional as F

from data import make_loaders


def fit(model, opt, train_set, val_set, epochs):
    loaders = make_loaders(train_set, val_set, 32)  # expect: TL302
    for epoch in range(epochs):
        model.train()
        for step, (x, y) in enumerate(loaders["train"]):
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()


def fit_with_aux(model, opt, train_set, val_set, aux_loader, epochs):
    loaders = make_loaders(train_set, val_set, 32)  # expect: TL302
    for epoch in range(epochs):
        model.train()
        for (x, y), (ax, ay) in zip(loaders["train"], aux_loader):
            opt.zero_grad()
            (F.cross_entropy(model(x), y) + F.cross_entropy(model(ax), ay)).backward()
            opt.step()
