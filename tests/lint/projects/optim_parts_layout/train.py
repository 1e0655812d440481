"""Each builder's named tuple unpacked by position: the scheduler is the item at
the place of its field, whatever the caller names it."""
import torch.nn.functional as F

from optim_factory import build_optim, build_pair


def train(model, loader, cfg):
    optimizer, scheduler = build_optim(model, cfg)
    for x, y in loader:
        scheduler.step()  # expect: TL404
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()


def train_pair(model, loader, cfg):
    scheduler, optimizer = build_pair(model, cfg)
    for x, y in loader:
        scheduler.step()  # expect: TL404
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()


def train_in_order(model, loader, cfg):
    optimizer, scheduler = build_optim(model, cfg)
    for x, y in loader:
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
        scheduler.step()


def train_misnamed(model, loader, cfg):
    # the names are the wrong way round: `sched` is the optimizer, which steps first
    sched, opt = build_optim(model, cfg)
    for x, y in loader:
        sched.zero_grad()
        F.cross_entropy(model(x), y).backward()
        sched.step()
        opt.step()
