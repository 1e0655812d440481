"""A loader handed to a helper of a module the project's run does not read: it
may set the epoch, and no finding is given, by the run over the project, by a
pre-commit run of this file alone, or by an editor's run from standard input."""
from torch.utils.data import DataLoader, DistributedSampler

from report import describe


def main(dataset, model, optimizer, epochs):
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, sampler=sampler)
    describe(loader)
    for epoch in range(epochs):
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
