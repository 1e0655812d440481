"""The same loop after `from backend import *`, which rebinds `torch` to the module the
environment names: `torch.amp` might not be torch's, so no fix is offered."""
import torch

from backend import *


def train(model, loader, optimizer):
    scaler = torch.cuda.amp.GradScaler()  # expect: TL102
    for x, y in loader:
        optimizer.zero_grad()
        with torch.cuda.amp.autocast():  # expect: TL102
            loss = torch.nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
