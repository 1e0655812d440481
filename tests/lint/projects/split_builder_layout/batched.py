"""The builder's sampler in a batch sampler the caller keeps in a variable."""
from torch.utils.data import BatchSampler, DataLoader

from data import distributed_sampler
from loops import fit


def named(cfg, model, optimizer, dataset):
    sampler = distributed_sampler(dataset, True)
    batches = BatchSampler(sampler, 8, False)
    loader = DataLoader(dataset, batch_sampler=batches)  # expect: TL302
    fit(model, loader, optimizer, cfg.epochs)


def inline(cfg, model, optimizer, dataset):
    batches = BatchSampler(distributed_sampler(dataset, True), 8, False)
    loader = DataLoader(dataset, batch_sampler=batches)  # expect: TL302
    fit(model, loader, optimizer, cfg.epochs)


def ordered(cfg, model, optimizer, dataset):
    batches = BatchSampler(distributed_sampler(dataset, False), 8, False)
    loader = DataLoader(dataset, batch_sampler=batches)
    fit(model, loader, optimizer, cfg.epochs)
