"""Three runs: the first only logs the epoch through a helper of another module,
which is known to leave the sampler alone; the second sets it through one; the
third sets only the epoch of the other loader it hands the helper."""
import torch

from data import build_train_loader
from logging_utils import set_up_epoch, set_up_evaluation_epoch, start_epoch


def train(model, dataset, epochs):
    loader = build_train_loader(dataset, 32)  # expect: TL302
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        start_epoch(loader, epoch)
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()


def train_well(model, dataset, epochs):
    train_loader = build_train_train_loader(dataset, 32)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        set_up_epoch(train_loader, epoch)
        for x, y in train_loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()


def train_setting_the_other(model, dataset, val_loader, epochs):
    loader = build_train_loader(dataset, 32)  # expect: TL302
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        set_up_evaluation_epoch(loader, val_loader, epoch)
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
