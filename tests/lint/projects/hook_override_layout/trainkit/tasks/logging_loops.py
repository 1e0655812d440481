"""Subclasses that keep or tidy up what each step hands them: one of each pair is wrong."""
import torch

from .. import engine
from ..engine import EpochLoop, PlainLoop


class KeepsLosses(engine.LoopBase):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.history = []

    def after_step(self, loss):
        self.history.append(loss)  # expect: TL202


class KeepsFloats(engine.LoopBase):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.history = []

    def after_step(self, loss):
        self.history.append(loss.detach())


class FreesEveryStep(engine.LoopBase):
    def after_step(self, loss):
        torch.cuda.empty_cache()  # expect: TL201

    def on_log(self, loss):
        torch.cuda.empty_cache()


class FreesNowAndThen(engine.LoopBase):
    def after_step(self, loss):
        if torch.cuda.memory_reserved() > 0.9 * torch.cuda.get_device_properties(0).total_memory:
            torch.cuda.empty_cache()


class HookedByName(engine.LoopBase):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.seen = []

    def on_batch(self, loss):
        self.seen.append(loss)


class SummingReport(PlainLoop):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.total = 0

    def report(self, loss):
        self.total += loss  # expect: TL202


class PrintingReport(PlainLoop):
    def report(self, loss):
        print(f"loss {loss.item():.4f}")


class FreesEachEpoch(EpochLoop):
    def on_epoch_end(self, epoch):
        torch.cuda.empty_cache()
