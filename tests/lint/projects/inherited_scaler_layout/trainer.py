"""Subclasses that train in bfloat16 with the scaler their base class builds."""
import torch

from base import BaseTrainer, SwitchedTrainer
from half_base import HalfBase


class Trainer(BaseTrainer):
    def training_step(self, batch):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = self.model(batch).mean()
        self.optimizer.zero_grad()
        self.scaler.scale(loss).backward()  # expect: TL106
        self.scaler.step(self.optimizer)
        self.scaler.update()


class WithOwnInit(BaseTrainer):
    """Its constructor runs the base's, which builds the scaler."""

    def __init__(self, model, optimizer, clip):
        super().__init__(model, optimizer)
        self.clip = clip

    def training_step(self, batch):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = self.model(batch).mean()
        self.step(loss)
        self.scaler.scale(loss)  # expect: TL106


class Replacing(BaseTrainer):
    """Its constructor never runs the base's: the scaler is not the base's."""

    def __init__(self, model, optimizer, scaler):
        self.model, self.optimizer, self.scaler_given = model, optimizer, scaler

    def training_step(self, batch):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = self.model(batch).mean()
        self.scaler.scale(loss).backward()


class Switched(SwitchedTrainer):
    def training_step(self, batch):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = self.model(batch).mean()
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()


class Half(HalfBase):
    def training_step(self, batch):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = self.model(batch).mean()
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()


class Unscaled(BaseTrainer):
    """bfloat16 without the scaler: the recommended recipe."""

    def training_step(self, batch):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = self.model(batch).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
