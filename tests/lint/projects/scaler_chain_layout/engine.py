"""Steps of steps.py run once per call, outside any loop of the function that calls
them: the loops that call these functions decide whether an update follows."""
import torch

from steps import train_one_step, update_scale


def run_batch(model, optimizer, scaler, batch):
    train_one_step(model, optimizer, scaler, batch)  # expect: TL104


def run_batch_then_update(model, optimizer, scaler, batch):
    train_one_step(model, optimizer, scaler, batch)
    scaler.update()


def run_batch_for_caller(model, optimizer, scaler, batch):
    train_one_step(model, optimizer, scaler, batch)


def fit(model, optimizer, loader):
    scaler = torch.amp.GradScaler("cuda")
    for batch in loader:
        run_batch(model, optimizer, scaler, batch)


def fit_with_update(model, optimizer, loader):
    scaler = torch.amp.GradScaler("cuda")
    for batch in loader:
        run_batch_for_caller(model, optimizer, scaler, batch)
        update_scale(scaler)
