"""Training steps kept apart from where the optimizer is built (torchvision's
references, a trainer mixin): this module cannot tell that `optimizer` is one,
train.py can."""
import torch
import torch.nn.functional as F


def train_one_epoch(model, criterion, optimizer, data_loader, device):
    model.train()
    for image, target in data_loader:
        output = model(image.to(device))
        loss = criterion(output, target.to(device))
        loss.backward()
        optimizer.step()


def train_one_epoch_clears(model, criterion, optimizer, data_loader):
    model.train()
    for image, target in data_loader:
        loss = criterion(model(image), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_step(model, optimizer, x, y):
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()


def train_step_resets(model, optimizer, x, y, tools):
    tools.reset_gradients(model)  # a library's: its name says it may clear them
    F.cross_entropy(model(x), y).backward()
    optimizer.step()


class StepMixin:
    def training_step(self, batch):
        x, y = batch
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        return loss.item()


class Detector(torch.nn.Module):
    """A trainer module that builds its own optimizer (simple-faster-rcnn's shape)."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def train_step(self, x, y):
        loss = F.mse_loss(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        return loss.item()


def train_batch(model, optimizer, x, y):
    optimizer.zero_grad()
    F.mse_loss(model(x), y).backward()
    optimizer.step()


def finetune(model, loader, optimizer):
    model.zero_grad()  # once, before the loop
    for x, y in loader:
        F.mse_loss(model(x), y).backward()
        optimizer.step()


def finetune_clears(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        F.mse_loss(model(x), y).backward()
        optimizer.step()


def finetune_accumulating(model, loader, optimizer, accum):
    for i, (x, y) in enumerate(loader):
        F.mse_loss(model(x), y).backward()
        if (i + 1) % accum == 0:
            optimizer.step()
            optimizer.zero_grad()


def step_schedule(scheduler):
    scheduler.step()
