"""Subclasses that validate with an inherited `evaluate()` between epochs."""
from base import BaseTrainer, EmaTrainer, RestoringTrainer


class Trainer(BaseTrainer):
    def fit(self, epochs):
        self.model.train()
        for epoch in range(epochs):
            for x in self.loader:
                self.optimizer.zero_grad()
                self.model(x).sum().backward()
                self.optimizer.step()
            self.evaluate()  # expect: TL405


class EpochTrainer(BaseTrainer):
    def fit(self, epochs):
        for epoch in range(epochs):
            self.model.train()
            for x in self.loader:
                self.optimizer.zero_grad()
                self.model(x).sum().backward()
                self.optimizer.step()
            self.evaluate()


class Restored(RestoringTrainer):
    def fit(self, epochs):
        self.model.train()
        for epoch in range(epochs):
            for x in self.loader:
                self.optimizer.zero_grad()
                self.model(x).sum().backward()
                self.optimizer.step()
            self.evaluate()


class WithEma(EmaTrainer):
    def fit(self, epochs):
        self.model.train()
        for epoch in range(epochs):
            for x in self.loader:
                self.optimizer.zero_grad()
                self.model(x).sum().backward()
                self.optimizer.step()
                self.ema.update(self.model)
            self.evaluate()


def validate_other(trainer, model, loader, optimizer):
    """`trainer.evaluate()` evaluates the trainer's model, which this function does not train."""
    model.train()
    for epoch in range(3):
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
        trainer.evaluate()
