"""Exports its model alone: the names it imports stay its own."""
import torch.nn as nn

__all__ = ["ResNet"]


class ResNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.fc = nn.Linear(3 * 32 * 32, classes)

    def forward(self, x):
        return self.fc(x.flatten(1))
