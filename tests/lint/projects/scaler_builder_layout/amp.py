import torch


def build_scaler():
    return torch.amp.GradScaler("cuda")


def build_switched_scaler(use_fp16):
    return torch.amp.GradScaler("cuda", enabled=use_fp16)


def build_optional_scaler(use_fp16):
    if use_fp16:
        return torch.amp.GradScaler("cuda")
    return None
