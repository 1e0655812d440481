"""A builder's sampler given its epoch by the loop that trains on it."""
from torch.utils.data import DataLoader

from options import distributed_sampler


def sampler_given_its_epoch(cfg, model, optimizer, dataset):
    sampler = distributed_sampler(dataset, True)
    loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    for epoch in range(cfg.epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            optimizer.zero_grad()
            model(batch).backward()
            optimizer.step()

