import torch


def release():
    torch.cuda.empty_cache()


def release_sometimes(epoch):
    if epoch % 10 == 0:
        torch.cuda.empty_cache()
