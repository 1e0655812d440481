"""Schedulers a builder of another module returns in a named tuple, stepped before the optimizer."""
from optimization import build_named, build_named_parts


def train(model, loader, cfg):
    optim = build_named(model, cfg)
    for x, y in loader:
        optim.optimizer.zero_grad()
        optim.scheduler.step()  # expect: TL404
        model(x).sum().backward()
        optim.optimizer.step()


def train_parts(model, loader, cfg):
    parts = build_named_parts(model, cfg)
    for x, y in loader:
        parts.optimizer.zero_grad()
        model(x).sum().backward()
        parts.scheduler.step()  # expect: TL404
        parts.optimizer.step()
