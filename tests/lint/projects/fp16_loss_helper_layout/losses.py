"""Loss helpers: float16 and bfloat16 autocast, and a float16 one for evaluation only."""
import torch


def compute_loss(model, criterion, x, y):
    with torch.autocast("cuda", dtype=torch.float16):
        return criterion(model(x), y)


def compute_loss_bf16(model, criterion, x, y):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        return criterion(model(x), y)


def eval_loss(model, criterion, x, y):
    with torch.no_grad(), torch.autocast("cuda", dtype=torch.float16):
        return criterion(model(x), y)
