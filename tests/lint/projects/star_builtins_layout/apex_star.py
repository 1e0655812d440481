import torch
from apex.fp16_utils import *  # binds no `enumerate`: Python's still counts the loader's batches
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def train(model, opt, epochs):
    ds = TensorDataset(torch.randn(64, 4))
    loader = DataLoader(ds, batch_size=8, sampler=DistributedSampler(ds))  # expect: TL302
    for epoch in range(epochs):
        for i, (x,) in enumerate(loader):
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()
