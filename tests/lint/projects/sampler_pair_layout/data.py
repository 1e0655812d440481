"""A builder that returns a loader with its DistributedSampler, and two training
functions given both: one sets the sampler's epoch, the other never does."""
from torch.utils.data import DataLoader, DistributedSampler


def loader_and_sampler(dataset):
    sampler = DistributedSampler(dataset, shuffle=True)
    return DataLoader(dataset, batch_size=8, sampler=sampler), sampler


def train_model(model, sampler, loader, optimizer, epochs):
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            model(x, y).backward()
            optimizer.step()


def train_forgetting(model, sampler, loader, optimizer, epochs):
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            model(x, y).backward()
            optimizer.step()
