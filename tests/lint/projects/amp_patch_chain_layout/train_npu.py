"""The port is two imports away (launch -> device_setup -> ports.npu): the old
spelling runs the NPU's AMP, so the fix to torch.amp is withheld."""
import torch

import launch  # noqa: F401


def train(model, loader, optimizer):
    scaler = torch.cuda.amp.GradScaler()  # expect: TL102
    for x, y in loader:
        optimizer.zero_grad()
        with torch.cuda.amp.autocast():  # expect: TL102
            loss = torch.nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
