"""Options taken from presets.py, which returns what options.py builds."""
from torch.utils.data import DataLoader

from loops import fit
from presets import (
    configured_options, default_split, held_out_preset, options_for, reordered_preset, train_options,
)
from trainer_lib import run_training


def through_preset(cfg, model, optimizer, dataset):
    loader = DataLoader(dataset, **train_options(cfg, dataset))  # expect: TL302
    fit(model, loader, optimizer, cfg.epochs)


def through_pass_on(cfg, model, optimizer, dataset):
    options = options_for(cfg, dataset, "train")
    loader = DataLoader(dataset, **options)  # expect: TL302
    fit(model, loader, optimizer, cfg.epochs)


def through_default(cfg, model, optimizer, dataset):
    loader = DataLoader(dataset, **default_split(dataset))  # expect: TL302
    fit(model, loader, optimizer, cfg.epochs)


def preset_held_out(cfg, model, optimizer, dataset):
    loader = DataLoader(dataset, **held_out_preset(cfg, dataset))
    fit(model, loader, optimizer, cfg.epochs)


def pass_on_unknown(cfg, model, optimizer, dataset, split):
    loader = DataLoader(dataset, **options_for(cfg, dataset, split))
    fit(model, loader, optimizer, cfg.epochs)


def preset_out_of_sight(cfg, model, optimizer, dataset):
    loader = DataLoader(dataset, **train_options(cfg, dataset))
    run_training(model, loader, optimizer)


def split_configured(cfg, model, optimizer, dataset):
    loader = DataLoader(dataset, **configured_options(cfg, dataset))
    fit(model, loader, optimizer, cfg.epochs)


def preset_reordered(cfg, model, optimizer, dataset, ordered):
    loader = DataLoader(dataset, **reordered_preset(cfg, dataset, ordered))
    fit(model, loader, optimizer, cfg.epochs)
