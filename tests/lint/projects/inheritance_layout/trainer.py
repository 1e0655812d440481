"""Subclasses calling what they inherit from classes of other modules."""
from base import Base
from core import Quiet


class Trainer(Base):
    def __init__(self, model, optimizer, loader):
        self.model = model
        self.optimizer = optimizer
        self.loader = loader
        self.history = []

    def fit(self, epochs):
        for epoch in range(epochs):
            for batch in self.loader:
                loss = self.update(batch)
                self.history.append(loss)  # expect: TL202
                self.free_memory()  # expect: TL201


class LoggingTrainer(Trainer):
    def update(self, batch):
        return super().update(batch).item()

    def fit(self, epochs):
        for epoch in range(epochs):
            for batch in self.loader:
                loss = super().update(batch)
                self.history.append(loss)  # expect: TL202
                self.history.append(self.update(batch))


class Tidy(Quiet, Base):
    """`free_memory` comes from Quiet, the first base that has it."""

    def fit(self, loader):
        for batch in loader:
            self.update(batch)
            self.free_memory()


class OwnFree(Base):
    def free_memory(self):
        self.freed = True

    def fit(self, loader):
        for batch in loader:
            self.update(batch)
            self.free_memory()
