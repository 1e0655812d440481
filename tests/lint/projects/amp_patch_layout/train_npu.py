"""Training on NPUs: the deprecated spelling is what the port replaces, so the
fix to torch.amp is withheld (torch.amp would run CUDA's, not the NPU's)."""
import torch

import ports.npu  # noqa: F401 - patches torch.cuda.amp


def train(model, loader, optimizer):
    scaler = torch.cuda.amp.GradScaler()  # expect: TL102
    for x, y in loader:
        optimizer.zero_grad()
        with torch.cuda.amp.autocast():  # expect: TL102
            loss = torch.nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
