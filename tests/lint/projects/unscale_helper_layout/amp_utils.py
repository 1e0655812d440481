"""An unscale-and-clip helper another module calls."""
import torch


def unscale_and_clip(scaler, optimizer, model):
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
