"""Helpers named like Python's builtins, which `from engine import *` binds in main.py."""


def eval(model, loader):
    model.eval()
    for x in loader:
        model(x)  # expect: TL406


def iter(loader, epoch):
    loader.sampler.set_epoch(epoch)
    return loader.__iter__()
