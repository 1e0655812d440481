"""Subclasses named after the class they import. `class LoopBase(LoopBase)` extends the
imported `LoopBase`: its override runs in that class's loop. `PlainLoop` is defined
twice here, the second on the first: the imported one's loop never runs its override."""
import torch

from ..engine import LoopBase, PlainLoop


class LoopBase(LoopBase):
    def after_step(self, loss):
        torch.cuda.empty_cache()  # expect: TL201


class PlainLoop:
    def report(self, loss):
        pass

    def run(self):
        for inputs in self.loader:
            self.model(inputs)
            self.report(None)


class PlainLoop(PlainLoop):
    def report(self, loss):
        torch.cuda.empty_cache()
