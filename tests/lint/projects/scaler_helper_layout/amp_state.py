"""A module-level GradScaler, stepped by one function and updated by another."""
import torch

scaler = torch.amp.GradScaler("cuda")


def step(loss, optimizer):
    scaler.scale(loss).backward()
    scaler.step(optimizer)


def finish():
    scaler.update()
