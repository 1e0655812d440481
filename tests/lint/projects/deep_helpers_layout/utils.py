import torch


def prepare(optimizer):
    optimizer.zero_grad()


def release():
    torch.cuda.empty_cache()


def maybe_release(step, every=100):
    if step % every == 0:
        release()
