"""The loader handed to a loop of the project that sets its sampler's epoch."""
from torch.utils.data import DataLoader

from loops import fit_each_epoch
from options import loader_options


def epochs_set_elsewhere(cfg, model, optimizer, dataset):
    options = loader_options(cfg, dataset, "train")
    loader = DataLoader(dataset, **options)
    fit_each_epoch(model, loader, optimizer, cfg.epochs)
