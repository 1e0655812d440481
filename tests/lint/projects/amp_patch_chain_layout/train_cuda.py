"""Imports a module that imports only cuDNN's settings: the fix is offered."""
import torch

import speed_setup  # noqa: F401


def train(model, loader, optimizer):
    scaler = torch.cuda.amp.GradScaler()  # expect: TL102
    for x, y in loader:
        optimizer.zero_grad()
        with torch.cuda.amp.autocast():  # expect: TL102
            loss = torch.nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
