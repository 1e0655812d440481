"""Loops whose backward pass is scaled by a helper of amp_utils.py, with a scaler
handed in (`train_one_epoch(model, loader, optimizer, scaler)`) or made by a
factory: clipping right after it clips scaled gradients."""
import torch

from amp_utils import backward_maybe_scaled, backward_scaled, make_scaler


def train_one_epoch(model, loader, optimizer, scaler):
    for x in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda"):
            loss = model(x).sum()
        backward_scaled(scaler, loss)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101
        scaler.step(optimizer)
        scaler.update()


def train_made(model, loader, optimizer):
    scaler = make_scaler()
    for x in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda"):
            loss = model(x).sum()
        backward_scaled(scaler, loss)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101
        scaler.step(optimizer)
        scaler.update()


def train_unscaled_first(model, loader, optimizer, scaler):
    for x in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda"):
            loss = model(x).sum()
        backward_scaled(scaler, loss)
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()


def train_scaler_or_not(model, loader, optimizer, scaler, clip):
    """open_clip's shape: the clip of the branch without a scaler clips plain gradients."""
    for x in loader:
        optimizer.zero_grad()
        backward_maybe_scaled(model(x).sum(), scaler)
        if scaler is not None:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            scaler.step(optimizer)
            scaler.update()
        else:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            optimizer.step()
