"""Fine-tuning with cosine.py's schedule only: that it is one of torch's is known from
schedules.py, which this file never imports."""
import torch

from cosine import WarmupCosine


def finetune(model, loader, iters):
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    schedule = WarmupCosine(optimizer, total=iters)
    for images, targets in loader:
        schedule.step()  # expect: TL404
        optimizer.zero_grad()
        model(images, targets).backward()
        optimizer.step()
