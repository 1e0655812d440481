"""The batch sampler's DistributedSampler given its epoch through the loader."""
from torch.utils.data import DataLoader

from options import batched_options


def batched_epoch_set(cfg, model, optimizer, dataset):
    loader = DataLoader(dataset, **batched_options(dataset, 8, "train"))
    for epoch in range(cfg.epochs):
        loader.batch_sampler.sampler.set_epoch(epoch)
        for batch in loader:
            optimizer.zero_grad()
            model(batch).backward()
            optimizer.step()
