"""Evaluation code whose methods call their instance something other than `self`:
what a method reaches through its first parameter is the instance's own, whatever
the name."""
import torch


class Evaluator:
    def __init__(ev, model, metric):
        ev.model = model
        ev.metric = metric

    def evaluate(ev, loader):
        scores = []
        for x, y in loader:
            scores.append(ev.metric(ev.model(x), y).item())
        return sum(scores) / len(scores)

    def evaluate_restarting(ev, loader):
        """Puts the model back in train mode first: no evaluation."""
        ev.model.train()
        return [ev.model(x).mean().item() for x, _ in loader]

    @staticmethod
    def evaluate_head(model, loader):
        """A staticmethod: `model.head` is an attribute of the model it is handed,
        no attribute of an instance."""
        return [model.head(x).mean().item() for x, _ in loader]


class Validating:
    """A mixin of trainers: validates the trainer's own model."""

    def validate(trainer):
        total = 0.0
        for x, y in trainer.val_loader:
            total += trainer.criterion(trainer.model(x), y).item()
        return total


def validate_plain(trainer, loader):
    """A function of the module, not a method: `trainer.model` is no model it is
    handed by name, whatever its first parameter is called."""
    total = 0.0
    for x, y in loader:
        total += trainer.criterion(trainer.model(x), y).item()
    return total


def validate_named_self(self, loader):
    """A function of the module whose first parameter is called `self`: still no method."""
    total = 0.0
    for x, y in loader:
        total += self.criterion(self.model(x), y).item()
    return total
