import torch


def make_scaler():
    return torch.amp.GradScaler("cuda")


def backward_scaled(scaler, loss):
    scaler.scale(loss).backward()
