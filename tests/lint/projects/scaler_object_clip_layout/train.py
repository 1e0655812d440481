"""Clipping between an object's scaled backward and its step."""
import torch

from amp_objects import AmpStepper, Manager, UnscalingBackward


def train_clipping_scaled(model, criterion, loader, optimizer):
    amp = AmpStepper()
    for x, y in loader:
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        amp.backward(loss)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101
        amp.step(optimizer)
        optimizer.zero_grad()


def train_unscaling_first(model, criterion, loader, optimizer):
    amp = AmpStepper()
    for x, y in loader:
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        amp.backward(loss)
        amp.scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        amp.step(optimizer)
        optimizer.zero_grad()


def train_clipping_in_the_object(model, criterion, loader, optimizer):
    amp = AmpStepper()
    for x, y in loader:
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        amp.backward(loss)
        amp.clip_and_step(optimizer, model.parameters(), 1.0)
        optimizer.zero_grad()


def train_backward_unscales(model, criterion, loader, optimizer):
    amp = UnscalingBackward()
    for x, y in loader:
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        amp.backward(loss, optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        amp.step(optimizer)
        optimizer.zero_grad()


def train_managed(model, criterion, loader, fp16):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    manager = Manager(fp16)
    model, optimizer = manager.prepare(model, optimizer)
    for x, y in loader:
        loss = criterion(model(x), y)
        manager.backward(loss)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()
