"""Options changed before they reach the loader: by a wrapper of the project, or here."""
from torch.utils.data import DataLoader

from loops import fit
from options import loader_options
from wrappers import sampler_deleted, sampler_removed, unshuffled_options, worker_options


def unshuffled(cfg, model, optimizer, dataset):
    loader = DataLoader(dataset, **unshuffled_options(dataset))  # expect: TL302
    fit(model, loader, optimizer, cfg.epochs)


def with_workers(cfg, model, optimizer, dataset):
    loader = DataLoader(dataset, **worker_options(dataset, "train"))  # expect: TL302
    fit(model, loader, optimizer, cfg.epochs)


def with_workers_ordered(cfg, model, optimizer, dataset):
    loader = DataLoader(dataset, **worker_options(dataset, "holdout"))
    fit(model, loader, optimizer, cfg.epochs)


def removed(cfg, model, optimizer, dataset):
    loader = DataLoader(dataset, **sampler_removed(dataset))
    fit(model, loader, optimizer, cfg.epochs)


def deleted(cfg, model, optimizer, dataset):
    loader = DataLoader(dataset, **sampler_deleted(dataset))
    fit(model, loader, optimizer, cfg.epochs)


def updated_here(cfg, model, optimizer, dataset):
    options = loader_options(dataset, "train")
    options.update(num_workers=4)
    loader = DataLoader(dataset, **options)  # expect: TL302
    fit(model, loader, optimizer, cfg.epochs)


def removed_here(cfg, model, optimizer, dataset):
    options = loader_options(dataset, "train")
    options.update(sampler=None)
    loader = DataLoader(dataset, **options)
    fit(model, loader, optimizer, cfg.epochs)
