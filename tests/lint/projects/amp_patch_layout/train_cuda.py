"""Training on CUDA: the module imported only tunes cuDNN, the fix is offered."""
import torch

from ports import tuning


def train(model, loader, optimizer):
    print(tuning.describe_amp())
    scaler = torch.cuda.amp.GradScaler()  # expect: TL102
    for x, y in loader:
        optimizer.zero_grad()
        with torch.cuda.amp.autocast():  # expect: TL102
            loss = torch.nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
