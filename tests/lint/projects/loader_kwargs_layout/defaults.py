"""A builder's split left to its default: "train" shuffles, "val" does not."""
from torch.utils.data import DataLoader

from loops import fit
from options import held_out_options, split_options


def default_train_split(cfg, model, optimizer, dataset):
    loader = DataLoader(dataset, **split_options(dataset))  # expect: TL302
    fit(model, loader, optimizer, cfg.epochs)


def default_val_split(cfg, model, optimizer, dataset):
    options = held_out_options(dataset)
    loader = DataLoader(dataset, **options)
    fit(model, loader, optimizer, cfg.epochs)


def split_named(cfg, model, optimizer, dataset):
    loader = DataLoader(dataset, **split_options(dataset, "val"))
    fit(model, loader, optimizer, cfg.epochs)


def split_unpacked(cfg, model, optimizer, dataset, **extra):
    loader = DataLoader(dataset, **split_options(dataset, **extra))
    fit(model, loader, optimizer, cfg.epochs)
