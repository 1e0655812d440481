"""Wrappers that change the options they are given before passing them on."""
from options import loader_options


def unshuffled_options(dataset):
    options = loader_options(dataset, "train")
    options["shuffle"] = False  # the loader's own flag: the sampler still shuffles
    return options


def worker_options(dataset, split):
    options = loader_options(dataset, split)
    options.update(num_workers=4, pin_memory=True)
    return options


def sampler_removed(dataset):
    options = loader_options(dataset, "train")
    options.update(sampler=None)
    return options


def sampler_deleted(dataset):
    options = loader_options(dataset, "train")
    del options["sampler"]
    return options
