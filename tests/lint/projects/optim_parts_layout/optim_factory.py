"""Builders that return the optimizer and its scheduler in named tuples, by
keyword in an order other than the fields', and through a variable."""
from collections import namedtuple
from typing import NamedTuple

import torch


class OptimParts(NamedTuple):
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler


SchedulePair = namedtuple("SchedulePair", ["scheduler", "optimizer"])


def build_optim(model, cfg):
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, cfg.step_size)
    return OptimParts(scheduler=scheduler, optimizer=optimizer)


def build_pair(model, cfg):
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    pair = SchedulePair(torch.optim.lr_scheduler.StepLR(optimizer, cfg.step_size), optimizer)
    return pair
