"""Loops that end each step through helpers.py: one updates the scaler and clears
the gradients there; the other only logs, and is missing both."""
import torch

from helpers import end_step, log_step

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.AdamW(model.parameters())
scaler = torch.amp.GradScaler("cpu")

for step in range(10):
    loss = model(torch.randn(2, 4)).mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    end_step(scaler, optimizer)

for step in range(10):
    loss = model(torch.randn(2, 4)).mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)  # expect: TL104,TL401
    log_step(step, scaler.get_scale())
