"""Stepping after an object's scaled backward: through the object, or plainly."""
import torch

from amp_objects import AmpStepper, Manager


def train_plain_step(model, criterion, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    amp = AmpStepper()
    for x, y in loader:
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        amp.backward(loss)
        optimizer.step()  # expect: TL105
        optimizer.zero_grad()


def train_through_the_object(model, head, criterion, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    head_optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
    amp = AmpStepper()
    for x, y in loader:
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        amp.backward(loss)
        amp.step(optimizer)
        optimizer.zero_grad()
        head(x).pow(2).mean().backward()
        head_optimizer.step()
        head_optimizer.zero_grad()


def train_either(model, criterion, loader, use_amp):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    amp = AmpStepper()
    for x, y in loader:
        loss = criterion(model(x), y)
        if use_amp:
            amp.backward(loss)
            amp.step(optimizer)
        else:
            loss.backward()
            optimizer.step()
        optimizer.zero_grad()


def train_managed(model, criterion, loader, fp16):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    manager = Manager(fp16)
    model, optimizer = manager.prepare(model, optimizer)
    for x, y in loader:
        loss = criterion(model(x), y)
        manager.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
