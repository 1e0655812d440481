import torch
from torch.utils.data import DataLoader, DistributedSampler

from helpers import Meter, Trainer, empty_cache, run_epoch, train_step


def main(model, dataset, epochs):
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, sampler=sampler)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    for epoch in range(epochs):
        run_epoch(model, loader, optimizer, epoch)
        scheduler.step()
        empty_cache()


def steps(model, loader, optimizer):
    meter = Meter()
    total = 0.0
    for batch in loader:
        total += train_step(model, batch, optimizer)
        meter.update(torch.zeros(()))
        empty_cache()


def delegated(dataset, epochs):
    other = DistributedSampler(dataset)
    Trainer(DataLoader(dataset, sampler=other)).fit(epochs)
