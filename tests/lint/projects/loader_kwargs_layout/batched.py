"""A DistributedSampler inside a BatchSampler: the loader's batch_sampler.sampler
still needs its epoch."""
from torch.utils.data import BatchSampler, DataLoader

from loops import fit, fit_each_epoch
from options import batched_options, distributed_sampler


def batched_train(cfg, model, optimizer, dataset):
    options = batched_options(dataset, 8, "train")
    loader = DataLoader(dataset, **options)  # expect: TL302
    fit(model, loader, optimizer, cfg.epochs)


def batched_here(cfg, model, optimizer, dataset):
    sampler = distributed_sampler(dataset, True)
    loader = DataLoader(dataset, batch_sampler=BatchSampler(sampler, 8, False))  # expect: TL302
    fit(model, loader, optimizer, cfg.epochs)


def batched_val(cfg, model, optimizer, dataset):
    loader = DataLoader(dataset, **batched_options(dataset, 8, "val"))
    fit(model, loader, optimizer, cfg.epochs)


def batched_epoch_elsewhere(cfg, model, optimizer, dataset):
    loader = DataLoader(dataset, **batched_options(dataset, 8, "train"))
    fit_each_epoch(model, loader, optimizer, cfg.epochs)


def batch_sampler_replaced(cfg, model, optimizer, dataset, ordered):
    options = batched_options(dataset, 8, "train")
    options["batch_sampler"] = ordered
    loader = DataLoader(dataset, **options)
    fit(model, loader, optimizer, cfg.epochs)
