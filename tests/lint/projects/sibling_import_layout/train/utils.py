import gc

import torch


def free_memory():
    gc.collect()


def update_meter(meter, loss):
    meter.append(loss)


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    for x, _ in loader:
        model(x)
