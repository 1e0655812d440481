import torch


def autocast(enabled=True):
    return torch.amp.autocast("cuda", enabled=enabled)
