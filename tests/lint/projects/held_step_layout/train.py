"""Epoch loops that reach the step functions of steps.py through a variable."""
import functools

from steps import logged_step, pair_step, train_step


def train_partial(model, optimizer, loader):
    step = functools.partial(train_step, model, optimizer)
    total = 0.0
    for batch in loader:
        total += step(batch)  # expect: TL202
    return total


def train_table(model, optimizer, loader, mode):
    steps = {"train": train_step}
    total = 0.0
    for batch in loader:
        total += steps[mode](model, optimizer, batch)  # expect: TL202
    return total


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.step_fn = train_step

    def fit(self, loader):
        total = 0.0
        for batch in loader:
            total += self.step_fn(self.model, self.optimizer, batch)  # expect: TL202
        return total


def train_logged(model, optimizer, loader):
    """The step returns the loss's number."""
    step = functools.partial(logged_step, model, optimizer)
    total = 0.0
    for batch in loader:
        total += step(batch)
    return total


def train_either(model, optimizer, loader, mode):
    """Which step runs is not known: one of them returns a number."""
    steps = {"train": train_step, "log": logged_step}
    total = 0.0
    for batch in loader:
        total += steps[mode](model, optimizer, batch)
    return total


def train_pairs(model, optimizer, loader):
    total, seen, logged = 0.0, 0, 0.0
    for batch in loader:
        loss, n, logs = pair_step(model, optimizer, batch)
        total += loss  # expect: TL202
        seen += n
        logged += logs["loss"]
    return total / seen, logged
