"""The options handed to code the project does not hold, which may change them."""
from torch.utils.data import DataLoader

from loops import fit
from options import loader_options
from trainer_lib import adjust


def options_changed_out_of_sight(cfg, model, optimizer, dataset):
    options = loader_options(cfg, dataset, "train")
    adjust(options)
    loader = DataLoader(dataset, **options)
    fit(model, loader, optimizer, cfg.epochs)
