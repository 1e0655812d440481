"""Loops over engine.py's steps: the first never updates the scaler; the others
update it after the step, in the helper, or may through a hook. Then loops over
amp_state.py's module-level scaler: one steps it and never updates it."""
import torch

import amp_state
from engine import full_step, hooked_step, scaled_step


def train(model, optimizer, loader):
    scaler = torch.amp.GradScaler("cuda")
    for batch in loader:
        scaled_step(model, optimizer, scaler, batch)  # expect: TL104


def train_updating(model, optimizer, loader):
    scaler = torch.amp.GradScaler("cuda")
    for batch in loader:
        scaled_step(model, optimizer, scaler, batch)
        scaler.update()


def train_full(model, optimizer, loader):
    scaler = torch.amp.GradScaler("cuda")
    for batch in loader:
        full_step(model, optimizer, scaler, batch)


def train_hooked(model, optimizer, loader, hook):
    scaler = torch.amp.GradScaler("cuda")
    for batch in loader:
        hooked_step(model, optimizer, scaler, batch, hook)


def train_module_scaler(model, optimizer, loader):
    for batch in loader:
        optimizer.zero_grad()
        amp_state.step(model(batch).mean(), optimizer)  # expect: TL104


def train_module_scaler_finished(model, optimizer, loader):
    for batch in loader:
        optimizer.zero_grad()
        amp_state.step(model(batch).mean(), optimizer)
        amp_state.finish()
