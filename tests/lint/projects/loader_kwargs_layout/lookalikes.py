"""The same shapes that need nothing: a split that does not shuffle, a loop that
sets the epoch, a loader handed to code out of sight, a sampler built not to
shuffle, a split the caller does not know."""
from torch.utils.data import DataLoader

from loops import fit, fit_each_epoch
from options import loader_options, ordered_options
from trainer_lib import run_training


def ordered_split(cfg, model, optimizer, dataset):
    options = loader_options(cfg, dataset, "val")
    loader = DataLoader(dataset, **options)
    fit(model, loader, optimizer, cfg.epochs)


def epochs_set_elsewhere(cfg, model, optimizer, dataset):
    options = loader_options(cfg, dataset, "train")
    loader = DataLoader(dataset, **options)
    fit_each_epoch(model, loader, optimizer, cfg.epochs)


def handed_out_of_sight(cfg, model, optimizer, dataset):
    options = loader_options(cfg, dataset, "train")
    loader = DataLoader(dataset, **options)
    run_training(model, loader, optimizer)


def never_shuffled(cfg, model, optimizer, dataset):
    loader = DataLoader(dataset, **ordered_options(dataset))
    fit(model, loader, optimizer, cfg.epochs)


def split_unknown(cfg, model, optimizer, dataset, split):
    options = loader_options(cfg, dataset, split)
    loader = DataLoader(dataset, **options)
    fit(model, loader, optimizer, cfg.epochs)
