import torch
import torch.nn.functional as F

from utils import GradNormScaler, Logger


def train_one_epoch(model, loader, optimizer, loss_scaler):
    for x, y in loader:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.cross_entropy(model(x), y)
        loss_scaler(loss, optimizer, clip_grad=5.0, parameters=model.parameters())  # expect: TL401


@torch.no_grad()
def validate(model, loader):
    model.eval()  # expect: TL405
    for x, y in loader:
        model(x)


def main(model, train_loader, val_loader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loss_scaler = GradNormScaler()
    for epoch in range(10):
        train_one_epoch(model, train_loader, optimizer, loss_scaler)
        validate(model, val_loader)
