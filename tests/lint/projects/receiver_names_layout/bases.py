"""Bases of trainers, written with `self`: the subclasses of callers.py call their
instance otherwise."""
import torch
import torch.nn.functional as F


class StepMixin:
    def training_step(self, batch):
        x, y = batch
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        return loss.item()


class ScalingBase:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.scaler = torch.amp.GradScaler("cuda")
