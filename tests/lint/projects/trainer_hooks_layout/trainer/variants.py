"""Trainers that each change one thing of the base loop; tasks/combined.py puts two
together, and Python looks the hooks up along their C3 order."""
from .amp_trainer import AmpTrainer
from .base import Trainer


class LoggingTrainer(Trainer):
    def log(self, text):
        print(self.global_step, text)


class ScaledTrainer(Trainer):
    def backward(self, loss):
        self.scaler.scale(loss).backward()


class LoggingAmpTrainer(AmpTrainer):
    def log(self, text):
        print(self.global_step, text)


class PlainBackwardTrainer(AmpTrainer):
    def backward(self, loss):
        loss.backward()
