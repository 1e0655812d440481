"""An fp16 loss helper of another module, used without a scaler, with one, and for evaluation."""
import torch

from losses import compute_loss, compute_loss_bf16, eval_loss


def train(model, criterion, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        loss = compute_loss(model, criterion, x, y)
        loss.backward()  # expect: TL103
        optimizer.step()


def train_bf16(model, criterion, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        loss = compute_loss_bf16(model, criterion, x, y)
        loss.backward()
        optimizer.step()


def validate(model, criterion, loader):
    total = 0.0
    for x, y in loader:
        total += eval_loss(model, criterion, x, y).item()
    return total
