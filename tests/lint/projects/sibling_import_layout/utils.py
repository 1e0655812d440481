"""Top-level helpers: not the ones `from . import utils` reaches inside `train/`."""
import torch


def free_memory():
    torch.cuda.empty_cache()


def update_meter(meter, loss):
    meter.append(loss.item())
