import torch

from trainer import amp_utils
from trainer.engine import train_one_epoch_scaled


def main(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(epochs):
        train_one_epoch_scaled(model, optimizer, scaler, loader)


def finetune(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
    scaler = torch.amp.GradScaler("cuda")
    for x in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda"):
            loss = model(x).mean()
        amp_utils.scaled_backward(scaler, loss)
        optimizer.step()  # expect: TL105
