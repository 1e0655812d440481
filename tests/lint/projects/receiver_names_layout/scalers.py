"""A loss scaler that owns its GradScaler, its methods calling their instance `ls`."""
import torch


class ClippingLossScaler:
    """Unscales and clips on every call, steps and updates only when told to."""

    def __init__(ls, device="cuda"):
        ls._scaler = torch.amp.GradScaler(device)

    def __call__(ls, loss, optimizer, parameters, max_norm=1.0, update_grad=True):
        ls._scaler.scale(loss).backward()
        ls._scaler.unscale_(optimizer)
        norm = torch.nn.utils.clip_grad_norm_(parameters, max_norm)
        if update_grad:
            ls._scaler.step(optimizer)
            ls._scaler.update()
        return norm
