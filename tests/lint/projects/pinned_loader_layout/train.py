import torch

from data import build_loader, get_loaders


def train(model, optimizer, train_set, val_set, device):
    loader = build_loader(train_set, 32)
    for x, y in loader:
        x = x.to(device, non_blocking=True)  # expect: TL502
        y = y.to(device, non_blocking=True)  # expect: TL502
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
    for step, (x, y) in enumerate(build_loader(val_set, 64)):
        model(x.cuda(non_blocking=True))  # expect: TL502


def fit(model, optimizer, train_set, val_set, device):
    train_loader, val_loader = get_loaders(train_set, val_set)
    for x, y in train_loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)  # expect: TL502
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
    with torch.no_grad():
        for x, y in val_loader:
            model(x.to(device, non_blocking=True))


def built_over_given(model, dataset, device, loader=None):
    loader = build_loader(dataset, 32)
    for x in loader:
        model(x.to(device, non_blocking=True))  # expect: TL502
