"""Presets over the options of options.py: each returns what the builder returns."""
from options import loader_options, split_options


def train_options(cfg, dataset):
    return loader_options(cfg, dataset, "train")


def held_out_preset(cfg, dataset):
    return loader_options(cfg, dataset, split="val")


def options_for(cfg, dataset, split):
    return loader_options(cfg, dataset, split)


def default_split(dataset):
    return split_options(dataset)


def configured_options(cfg, dataset):
    return loader_options(cfg, dataset, cfg.split)


def reordered_preset(cfg, dataset, ordered):
    options = loader_options(cfg, dataset, "train")
    options["sampler"] = ordered
    return options
