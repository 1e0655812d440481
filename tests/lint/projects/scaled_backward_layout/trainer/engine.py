"""Epoch loops handed the optimizer and the scaler; the backward pass runs in amp_utils."""
import torch

from .amp_utils import backward, scaled_backward


def train_one_epoch(model, optimizer, scaler, loader):
    for x in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda"):
            loss = model(x).mean()
        scaled_backward(scaler, loss)
        optimizer.step()  # expect: TL105


def train_one_epoch_scaled(model, optimizer, scaler, loader):
    for x in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda"):
            loss = model(x).mean()
        scaled_backward(scaler, loss)
        scaler.step(optimizer)
        scaler.update()


def train_one_epoch_fp32(model, optimizer, scaler, loader):
    for x in loader:
        optimizer.zero_grad()
        loss = model(x).mean()
        backward(scaler, loss)
        optimizer.step()
