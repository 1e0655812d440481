"""Objects that validate a model they are given (ignite's and many trainers'
`Evaluator(model, loader).run()`): what they put in eval mode is the model
handed to their constructor."""
import torch


class Evaluator:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader

    @torch.no_grad()
    def run(self):
        self.model.eval()
        for x in self.loader:
            self.model(x)


class RestoringEvaluator(Evaluator):
    def run(self):
        super().run()
        self.model.train()


class Probe:
    """Keeps the model under another name: `self.model` is a fresh one."""

    def __init__(self, model, make):
        self.trained = model
        self.model = make()

    def run(self):
        self.model.eval()
