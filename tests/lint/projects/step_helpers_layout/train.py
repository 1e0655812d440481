"""Loops that end each step through helpers.py: one updates the scaler and clears
the gradients there; the other only logs, and is missing both. The last resets
meters with a helper whose name says "zero" but whose code clears no gradient."""
import torch

from helpers import end_step, log_step, zero_meters

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

meters = {}
for step in range(10):
    zero_meters(meters)
    model(torch.randn(2, 4)).mean().backward()
    optimizer.step()  # expect: TL401
