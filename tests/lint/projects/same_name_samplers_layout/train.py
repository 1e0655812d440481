"""Two training functions per pair, one that sets the sampler's epoch and one
that forgets: the variables have the same names, and are not the same variables."""
import torch
from torch.utils.data import DataLoader, DistributedSampler

from datasets.loaders import build_train_loader as make_loader


def train_forgetting(model, dataset, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = make_loader(dataset)  # expect: TL302
    for epoch in range(epochs):
        for x in loader:
            optimizer.zero_grad()
            model(x).mean().backward()
            optimizer.step()


def train_resumable(model, dataset, epochs, start):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = make_loader(dataset)
    for epoch in range(start, epochs):
        loader.sampler.set_epoch(epoch)
        for x in loader:
            optimizer.zero_grad()
            model(x).mean().backward()
            optimizer.step()


def finetune_forgetting(model, dataset, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    sampler = DistributedSampler(dataset)  # expect: TL302
    loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    for epoch in range(epochs):
        for x in loader:
            optimizer.zero_grad()
            model(x).mean().backward()
            optimizer.step()


def finetune(model, dataset, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x in loader:
            optimizer.zero_grad()
            model(x).mean().backward()
            optimizer.step()
