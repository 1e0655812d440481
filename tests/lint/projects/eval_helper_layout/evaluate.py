"""Evaluation loops after a helper of utils.py put the model in eval mode."""
import utils
from utils import set_eval


def evaluate(model, loader):
    utils.prepare_eval(model)
    total = 0
    for x, y in loader:
        total += model(x).sum()  # expect: TL406
    return total


def evaluate_imported(model, loader):
    model = set_eval(model)
    correct = 0
    for x, y in loader:
        correct += (model(x).argmax(-1) == y).sum()  # expect: TL406
    return correct


class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader

    def validate(self):
        utils.prepare_eval(self.model)
        total = 0
        for x, y in self.loader:
            total += self.model(x).sum()  # expect: TL406
        return total
