import torch
import torch.nn.functional as F


def train_one_epoch(model, loader, optimizer):
    model.eval()
    with torch.no_grad():
        for images, targets in loader:
            print(F.mse_loss(model(images), targets).item())
