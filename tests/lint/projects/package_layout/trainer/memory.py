import torch

device = "cuda"
device_module = getattr(torch, device)


def release():
    device_module.empty_cache()


def release_sometimes(step):
    if step % 100 == 0:
        device_module.empty_cache()
