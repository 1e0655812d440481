import sys
from pathlib import Path

import torch

sys.path.append(str(Path(__file__).resolve().parent.parent / "lib"))

from core.function import train_one_epoch  # noqa: E402


def finetune(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10)
    for epoch in range(epochs):
        scheduler.step()  # expect: TL404
        train_one_epoch(model, loader, optimizer)
