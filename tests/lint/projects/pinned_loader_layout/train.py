import torch

from data import build_loader, get_loaders
from loaders import default_loader, small_loader


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


def through_presets(model, dataset, device):
    # the presets of loaders.py return what data.py's builder builds, unpinned
    for x in small_loader(dataset):
        model(x.to(device, non_blocking=True))  # expect: TL502
    loader = default_loader(dataset)
    for x in loader:
        model(x.to(device, non_blocking=True))  # expect: TL502
