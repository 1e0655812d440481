"""Presets over the data module's builders: what they return is what the builders build,
pinned here or not."""
from data import build_loader, build_pinned_loader


def default_loader(dataset):
    return build_loader(dataset, 32)


def small_loader(dataset):
    loader = default_loader(dataset)
    return loader


def pinned_default_loader(dataset):
    loader = build_loader(dataset, 32)
    loader.pin_memory = True
    return loader


def fast_or_default(dataset, fast):
    if fast:
        return build_pinned_loader(dataset, 32)
    return default_loader(dataset)
