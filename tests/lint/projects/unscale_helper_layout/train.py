"""Gradient accumulation: the helper on every micro-step, and only on the step that steps."""
import torch

from amp_utils import unscale_and_clip


def train(model, criterion, loader, optimizer, accum):
    scaler = torch.amp.GradScaler("cuda")
    for i, (x, y) in enumerate(loader):
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        scaler.scale(loss / accum).backward()
        unscale_and_clip(scaler, optimizer, model)  # expect: TL108
        if (i + 1) % accum == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()


def train_ok(model, criterion, loader, optimizer, accum):
    scaler = torch.amp.GradScaler("cuda")
    for i, (x, y) in enumerate(loader):
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        scaler.scale(loss / accum).backward()
        if (i + 1) % accum == 0:
            unscale_and_clip(scaler, optimizer, model)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
