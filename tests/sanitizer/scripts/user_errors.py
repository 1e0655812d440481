"""A classifier whose run ends in the user's own mistake, raised through the
places the sanitizer watches:

    dataset    Dataset.__getitem__ raises while the DataLoader fetches batch 3
    loss       cross_entropy gets targets of the wrong shape at step 3
    backward   a custom autograd Function's backward raises at step 3
    closure    the closure given to optimizer.step raises at step 3
    scaler     the optimizer raises inside GradScaler.step at step 3
    anomaly    under `torch.autograd.set_detect_anomaly(True)`, a batch of NaN at step 3:
               torch prints the forward stack of the cross_entropy node whose backward
               returned NaN, then raises
"""
import sys

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, Dataset

WHERE = sys.argv[1]
torch.autograd.set_detect_anomaly(WHERE == "anomaly")


class Samples(Dataset):
    def __len__(self) -> int:
        return 64

    def __getitem__(self, index: int):
        if WHERE == "dataset" and index == 17:
            raise KeyError(f"sample {index} is missing from the index")
        generator = torch.Generator().manual_seed(index)
        return torch.randn(6, generator=generator), index % 3


class Clamp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, fail):
        ctx.fail = fail
        return x.clamp(-3, 3)

    @staticmethod
    def backward(ctx, grad):
        if ctx.fail:
            raise ArithmeticError("custom backward cannot handle this batch")
        return grad, None


class Picky(torch.optim.SGD):
    def step(self, closure=None):
        if self.fail:
            raise RuntimeError("optimizer state is corrupt")
        return super().step(closure)


model = nn.Linear(6, 3)
optimizer = Picky(model.parameters(), lr=0.1)
optimizer.fail = False
scaler = torch.amp.GradScaler("cpu", enabled=WHERE == "scaler")
loader = DataLoader(Samples(), batch_size=8)
for step, (x, y) in enumerate(loader, start=1):
    broken = step == 3
    optimizer.fail = broken and WHERE == "scaler"

    def closure():
        optimizer.zero_grad()
        targets = y[:-1] if broken and WHERE == "loss" else y
        inputs = torch.full_like(x, float("nan")) if broken and WHERE == "anomaly" else x
        loss = F.cross_entropy(Clamp.apply(model(inputs), broken and WHERE == "backward"), targets)
        if broken and WHERE == "closure":
            raise FloatingPointError("closure refused the batch")
        scaler.scale(loss).backward()
        return loss

    if WHERE == "closure":
        optimizer.step(closure)
    else:
        closure()
        scaler.step(optimizer)
        scaler.update()
print("finished")
