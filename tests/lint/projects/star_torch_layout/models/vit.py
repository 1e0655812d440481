"""A small vision transformer: imports torch, which `from models import *` hands on."""
import torch
import torch.nn as nn


class ViT(nn.Module):
    def __init__(self, dim=64, classes=10):
        super().__init__()
        self.embed = nn.Linear(3 * 32 * 32, dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        return self.head(torch.relu(self.embed(x.flatten(1))))
