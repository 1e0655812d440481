"""A builder whose module autocasts to float16 itself: its scaler may serve that path."""
import torch


def build_half_scaler():
    return torch.amp.GradScaler("cuda")


def half_loss(model, x):
    with torch.autocast("cuda", dtype=torch.float16):
        return model(x).mean()
