"""Helpers whose names promise more than they do."""
import logging

import torch


def empty_cache():
    logging.info("cache kept: the allocator reuses it")


def train_step(model, batch, optimizer):
    optimizer.zero_grad()
    loss = model(batch).sum()
    loss.backward()
    optimizer.step()
    return loss.item()


class Meter:
    def __init__(self):
        self.total = 0.0

    def update(self, value):
        self.total += value.item()


def run_epoch(model, loader, optimizer, epoch):
    loader.sampler.set_epoch(epoch)
    for batch in loader:
        train_step(model, batch, optimizer)
    torch.cuda.empty_cache()


class Trainer:
    def __init__(self, loader):
        self.loader = loader

    def fit(self, epochs):
        for epoch in range(epochs):
            self.loader.sampler.set_epoch(epoch)
