"""Trains a model of the package: `from models import *` binds `torch` only to torch."""
import torch

from models import *


def train(loader, optimizer):
    model = ViT()
    scaler = torch.cuda.amp.GradScaler()  # expect: TL102
    for x, y in loader:
        optimizer.zero_grad()
        with torch.cuda.amp.autocast():  # expect: TL102
            loss = torch.nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
