"""The same named tuples' schedules stepped after the optimizer, or driven by a metric."""
from optimization import build_named, build_named_plateau


def train(model, loader, cfg):
    optim = build_named(model, cfg)
    for x, y in loader:
        optim.optimizer.zero_grad()
        model(x).sum().backward()
        optim.optimizer.step()
        optim.scheduler.step()


def train_plateau(model, loader, cfg):
    parts = build_named_plateau(model, cfg)
    for x, y in loader:
        parts.scheduler.step()
        parts.optimizer.zero_grad()
        model(x).sum().backward()
        parts.optimizer.step()
