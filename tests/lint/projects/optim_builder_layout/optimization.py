"""Builders of an optimizer and its schedule, for other modules to train with."""
import collections
from typing import NamedTuple

import torch
from torch.optim import lr_scheduler


def build_optim(model, cfg):
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    scheduler = lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.steps)
    return optimizer, scheduler


def build_schedule_first(model, cfg):
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr)
    return lr_scheduler.StepLR(optimizer, 30), optimizer


def build_parts(model, cfg):
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    return {"optimizer": optimizer, "scheduler": lr_scheduler.LinearLR(optimizer)}


def build_plateau(model, cfg):
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    if cfg.schedule == "plateau":
        scheduler = lr_scheduler.ReduceLROnPlateau(optimizer)
    else:
        scheduler = lr_scheduler.StepLR(optimizer, 30)
    return optimizer, scheduler


def build_registered(model, cfg):
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    return optimizer, cfg.schedules[cfg.schedule](optimizer)


Optim = collections.namedtuple("Optim", ["optimizer", "scheduler"])


class Parts(NamedTuple):
    optimizer: torch.optim.Optimizer
    scheduler: lr_scheduler.LRScheduler


def build_named(model, cfg):
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr)
    return Optim(optimizer, lr_scheduler.StepLR(optimizer, 30))


def build_named_parts(model, cfg):
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    return Parts(scheduler=lr_scheduler.LinearLR(optimizer), optimizer=optimizer)


def build_named_plateau(model, cfg):
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    return Parts(optimizer, lr_scheduler.ReduceLROnPlateau(optimizer))
