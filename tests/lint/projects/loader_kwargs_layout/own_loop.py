"""The split given by keyword, and a loop of its own that back-propagates."""
import torch

from options import distributed_sampler, loader_options, plain_options


def main(cfg, model, optimizer, dataset):
    options = loader_options(cfg, dataset, split="train")
    loader = torch.utils.data.DataLoader(dataset, **options)  # expect: TL302
    for epoch in range(cfg.epochs):
        for batch in loader:
            optimizer.zero_grad()
            model(batch).backward()
            optimizer.step()


def shuffled(cfg, model, optimizer, dataset):
    loader = torch.utils.data.DataLoader(dataset, **plain_options(dataset, 16))  # expect: TL302
    for epoch in range(cfg.epochs):
        for batch in loader:
            optimizer.zero_grad()
            model(batch).backward()
            optimizer.step()


def sampler_alone(cfg, model, optimizer, dataset):
    sampler = distributed_sampler(dataset, True)
    loader = torch.utils.data.DataLoader(dataset, batch_size=8, sampler=sampler)  # expect: TL302
    for epoch in range(cfg.epochs):
        for batch in loader:
            optimizer.zero_grad()
            model(batch).backward()
            optimizer.step()
