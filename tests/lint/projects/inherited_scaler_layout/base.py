"""Base trainers whose constructors build the GradScaler their subclasses use."""
import torch


class BaseTrainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.scaler = torch.amp.GradScaler("cuda")

    def step(self, loss):
        self.optimizer.zero_grad()
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()


class SwitchedTrainer:
    """The scaler is on only for float16 runs."""

    def __init__(self, model, optimizer, fp16):
        self.model = model
        self.optimizer = optimizer
        self.scaler = torch.amp.GradScaler("cuda", enabled=fp16)
