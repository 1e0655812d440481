"""The same shapes that need nothing: a split that does not shuffle, a sampler built
not to shuffle, a split the caller does not write out, the sampler replaced."""
from torch.utils.data import DataLoader

from loops import fit
from options import distributed_sampler, loader_options, ordered_options


def ordered_split(cfg, model, optimizer, dataset):
    options = loader_options(cfg, dataset, "val")
    loader = DataLoader(dataset, **options)
    fit(model, loader, optimizer, cfg.epochs)


def never_shuffled(cfg, model, optimizer, dataset):
    loader = DataLoader(dataset, **ordered_options(dataset))
    fit(model, loader, optimizer, cfg.epochs)


def split_unknown(cfg, model, optimizer, dataset, split):
    options = loader_options(cfg, dataset, split)
    loader = DataLoader(dataset, **options)
    fit(model, loader, optimizer, cfg.epochs)


def sampler_in_order(cfg, model, optimizer, dataset):
    sampler = distributed_sampler(dataset, False)
    loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    fit(model, loader, optimizer, cfg.epochs)


def sampler_replaced(cfg, model, optimizer, dataset, ordered):
    options = loader_options(cfg, dataset, "train")
    options["sampler"] = ordered
    loader = DataLoader(dataset, **options)
    fit(model, loader, optimizer, cfg.epochs)
