"""The same sampler: a global set by `setup()`, and one read by the epoch
function nested in the function that builds it."""
import torch
from torch.utils.data import DataLoader, DistributedSampler

train_sampler = None
train_loader = None


def setup(dataset):
    global train_sampler, train_loader
    train_sampler = DistributedSampler(dataset)
    train_loader = DataLoader(dataset, batch_size=8, sampler=train_sampler)


def train(model, optimizer, epochs):
    for epoch in range(epochs):
        train_sampler.set_epoch(epoch)
        for x in train_loader:
            optimizer.zero_grad()
            model(x).mean().backward()
            optimizer.step()


def main(model, dataset, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=8, sampler=sampler)

    def run_epoch(epoch):
        sampler.set_epoch(epoch)
        for x in loader:
            optimizer.zero_grad()
            model(x).mean().backward()
            optimizer.step()

    for epoch in range(epochs):
        run_epoch(epoch)
