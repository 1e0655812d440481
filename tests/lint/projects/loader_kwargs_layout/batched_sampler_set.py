"""A builder's sampler in a BatchSampler, given its epoch by name."""
from torch.utils.data import BatchSampler, DataLoader

from options import distributed_sampler


def batched_sampler_set(cfg, model, optimizer, dataset):
    sampler = distributed_sampler(dataset, True)
    loader = DataLoader(dataset, batch_sampler=BatchSampler(sampler, 8, False))
    for epoch in range(cfg.epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            optimizer.zero_grad()
            model(batch).backward()
            optimizer.step()
