import torch
import torch.nn.functional as F

from steppers import ClearingStepper, LoggingStepper


def train_with_the_override(model, loader):
    """The subclass's `run` clears: the base's `__call__` runs it, not the base's `run`."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    stepper = ClearingStepper()
    for x, y in loader:
        stepper(F.cross_entropy(model(x), y), optimizer)


def train_with_the_base_run(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    stepper = LoggingStepper()
    for x, y in loader:
        stepper(F.cross_entropy(model(x), y), optimizer)  # expect: TL401
