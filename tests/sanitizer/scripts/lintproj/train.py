"""Entry script of a small project: the sanitizer lints it and the package it imports."""
import torch
from torch import nn

from pkg.steps import train_step

torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
for _ in range(5):
    train_step(model, scaler, optimizer, torch.randn(8, 4), torch.randn(8, 1))
