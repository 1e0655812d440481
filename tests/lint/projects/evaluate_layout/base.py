"""Trainer base classes whose `evaluate()` the subclasses in trainer.py inherit."""
import torch


class BaseTrainer:
    def evaluate(self):
        self.model.eval()
        with torch.no_grad():
            for x in self.val_loader:
                self.model(x)


class RestoringTrainer:
    def evaluate(self):
        self.model.eval()
        with torch.no_grad():
            for x in self.val_loader:
                self.model(x)
        self.model.train()


class EmaTrainer:
    def evaluate(self):
        self.ema.eval()
        with torch.no_grad():
            for x in self.val_loader:
                self.ema(x)
