"""Trainers that log or tidy up after each step."""
import torch

from .amp_trainer import UnscalingAmpTrainer
from .base import Trainer


class HistoryTrainer(Trainer):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.history = []
        self.running = 0.0

    def on_step_end(self, loss):
        self.history.append(loss)  # expect: TL202
        self.running += loss.item()


class DetachedHistoryTrainer(Trainer):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.history = []

    def on_step_end(self, loss):
        self.history.append(loss.detach())


class TidyTrainer(UnscalingAmpTrainer):
    def on_step_end(self, loss):
        torch.cuda.empty_cache()  # expect: TL201


class PeriodicTidyTrainer(UnscalingAmpTrainer):
    def on_step_end(self, loss):
        if self.global_step % self.config.log_every == 0:
            torch.cuda.empty_cache()
