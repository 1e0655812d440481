"""Meters and AMP pieces shared by the engine and the entry point."""
from collections import defaultdict

import torch
from torch.cuda.amp import GradScaler  # noqa: F401  (imported from here by train.py)


class SmoothedValue:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.total += value * n
        self.count += n

    @property
    def avg(self):
        return self.total / max(self.count, 1)


class MetricLogger:
    def __init__(self):
        self.meters = defaultdict(SmoothedValue)

    def update(self, **kwargs):
        for name, value in kwargs.items():
            if isinstance(value, torch.Tensor):
                value = value.item()
            self.meters[name].update(value)


def build_scaler(enabled):
    return torch.amp.GradScaler("cuda", enabled=enabled)
