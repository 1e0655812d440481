"""The same loop, correct: cleared every iteration, back in train mode each epoch."""
import torch
import torch.nn.functional as F

from utils import GradNormScaler, Logger


def train_one_epoch(model, loader, optimizer, loss_scaler, logger):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.cross_entropy(model(x), y)
        loss_scaler(loss, optimizer, clip_grad=5.0, parameters=model.parameters())
        logger(loss, optimizer)


@torch.no_grad()
def validate(model, loader):
    model.eval()
    for x, y in loader:
        model(x)


def finetune_frozen_statistics(model, loader, optimizer, loss_scaler):
    """BatchNorm statistics and dropout frozen on purpose: the loop trains through
    the scaler object, so it is no evaluation loop."""
    model.eval()
    for x, y in loader:
        optimizer.zero_grad()
        loss_scaler(F.cross_entropy(model(x), y), optimizer)


def main(model, train_loader, val_loader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loss_scaler = GradNormScaler()
    for epoch in range(10):
        train_one_epoch(model, train_loader, optimizer, loss_scaler, Logger())
        validate(model, val_loader)
    finetune_frozen_statistics(model, train_loader, optimizer, loss_scaler)


def log_only(model, loader, optimizer):
    """A look-alike loop: the logger object is called, nothing trains."""
    logger = Logger()
    for x, y in loader:
        logger(F.cross_entropy(model(x), y), optimizer)
