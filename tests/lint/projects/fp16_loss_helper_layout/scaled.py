"""The float16 helper used with a GradScaler: no finding."""
import torch

from losses import compute_loss


def train_scaled(model, criterion, loader, optimizer):
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        optimizer.zero_grad()
        scaler.scale(compute_loss(model, criterion, x, y)).backward()
        scaler.step(optimizer)
        scaler.update()
