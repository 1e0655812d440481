"""The batch sampler's sampler given its epoch through the batch sampler."""
from torch.utils.data import BatchSampler, DataLoader

from data import distributed_sampler


def batched_epoch_set(cfg, model, optimizer, dataset):
    batches = BatchSampler(distributed_sampler(dataset, True), 8, False)
    loader = DataLoader(dataset, batch_sampler=batches)
    for epoch in range(cfg.epochs):
        batches.sampler.set_epoch(epoch)
        for batch in loader:
            optimizer.zero_grad()
            model(batch).backward()
            optimizer.step()
