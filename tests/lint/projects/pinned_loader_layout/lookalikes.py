"""Loaders built in another module that pin memory, or may: nothing to report."""
import torch

from data import build_configured_loader, build_either, build_loader, build_loader_with, build_pinned_loader, wrap_loader
from loaders import fast_or_default, pinned_default_loader


def train(model, optimizer, dataset, args, device):
    for x in build_pinned_loader(dataset, 32):
        model(x.to(device, non_blocking=True))
    for x in build_configured_loader(dataset, args):
        model(x.to(device, non_blocking=True))
    for x in build_loader_with(dataset, batch_size=32, pin_memory=True):
        model(x.to(device, non_blocking=True))
    for x in wrap_loader(torch.utils.data.DataLoader(dataset, pin_memory=True)):
        model(x.to(device, non_blocking=True))
    for x in build_either(dataset, args.pin):
        model(x.to(device, non_blocking=True))


def rebound(model, dataset, device, pinned):
    # bound twice: which loader the loop draws from is not known here
    loader = build_loader(dataset, 32)
    if pinned is not None:
        loader = pinned
    for x in loader:
        model(x.to(device, non_blocking=True))


def given(model, loader, device):
    loader = build_loader(loader, 32) if loader is None else loader
    for x in loader:
        model(x.to(device, non_blocking=True))


def handed_or_built(model, dataset, device, loader=None):
    # a caller may hand a pinned loader; the unpinned one is built only when none is
    if loader is None:
        loader = build_loader(dataset, 32)
    for x in loader:
        model(x.to(device, non_blocking=True))


def through_presets(model, dataset, device, fast):
    # a preset that pins the builder's loader, or returns a pinned one on some runs
    for x in pinned_default_loader(dataset):
        model(x.to(device, non_blocking=True))
    for x in fast_or_default(dataset, fast):
        model(x.to(device, non_blocking=True))
