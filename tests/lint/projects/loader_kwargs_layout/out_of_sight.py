"""The loader handed to code the project does not hold."""
from torch.utils.data import DataLoader

from options import loader_options
from trainer_lib import run_training


def handed_out_of_sight(cfg, model, optimizer, dataset):
    options = loader_options(cfg, dataset, "train")
    loader = DataLoader(dataset, **options)
    run_training(model, loader, optimizer)
