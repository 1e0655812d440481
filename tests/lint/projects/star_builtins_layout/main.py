import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from engine import *  # binds the project's eval() and iter(), shadowing the builtins

model = torch.nn.Sequential(torch.nn.Linear(4, 1), torch.nn.Dropout(0.1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
ds = TensorDataset(torch.randn(64, 4))
sampler = DistributedSampler(ds, num_replicas=2, rank=0)  # its epoch set by engine.iter()
loader = DataLoader(ds, batch_size=8, sampler=sampler)
model.train()
for epoch in range(3):
    for (x,) in iter(loader, epoch):
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()
    eval(model, [x])  # expect: TL405
