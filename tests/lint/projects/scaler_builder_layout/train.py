"""Training in bfloat16 with a GradScaler that a builder of another module makes."""
import torch

from amp import build_optional_scaler, build_scaler, build_switched_scaler
from half_amp import build_half_scaler


def train(model, criterion, loader, optimizer):
    scaler = build_scaler()
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()  # expect: TL106
        scaler.step(optimizer)
        scaler.update()


def train_switched(model, criterion, loader, optimizer, use_fp16):
    scaler = build_switched_scaler(use_fp16)
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


def train_half_module(model, criterion, loader, optimizer):
    scaler = build_half_scaler()
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


def train_optional(model, criterion, loader, optimizer, use_fp16):
    scaler = build_optional_scaler(use_fp16)
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = criterion(model(x), y)
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()
