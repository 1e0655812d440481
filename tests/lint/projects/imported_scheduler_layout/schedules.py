"""Schedules of the project: two derive from torch's scheduler class, one only looks like one."""
import torch


class WarmupPoly(torch.optim.lr_scheduler._LRScheduler):
    def __init__(self, optimizer, total, warmup=100, last_epoch=-1):
        self.total = total
        self.warmup = warmup
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        scale = min(1.0, (self.last_epoch + 1) / self.warmup) * (1 - self.last_epoch / self.total) ** 0.9
        return [lr * scale for lr in self.base_lrs]


class LinearRamp:
    """Sets the learning rate by hand: no schedule of torch's, no first value to skip."""

    def __init__(self, optimizer, total):
        self.optimizer = optimizer
        self.total = total
        self.done = 0

    def step(self):
        self.done += 1
        for group in self.optimizer.param_groups:
            group["lr"] = group["initial_lr"] * (1 - self.done / self.total)
