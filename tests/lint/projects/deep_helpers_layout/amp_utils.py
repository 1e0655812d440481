import torch


def make_scaler():
    return torch.amp.GradScaler("cuda")


def backward_scaled(scaler, loss):
    scaler.scale(loss).backward()


def backward_maybe_scaled(loss, scaler=None):
    if scaler is not None:
        scaler.scale(loss).backward()
    else:
        loss.backward()
