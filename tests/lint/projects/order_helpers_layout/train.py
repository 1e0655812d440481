"""Loops that end each step through helpers.py, after their own backward pass."""
import torch

from helpers import clear_then_step, clip_then_step, full_step, step_then_clear, step_then_clip

model = torch.nn.Linear(4, 1)
opt = torch.optim.AdamW(model.parameters())


def wrong_order(batches):
    for batch in batches:
        model(batch).mean().backward()
        step_then_clip(opt, model)  # expect: TL403
        opt.zero_grad()
    for batch in batches:
        model(batch).mean().backward()
        clear_then_step(opt)  # expect: TL402


def right_order(batches):
    for batch in batches:
        model(batch).mean().backward()
        clip_then_step(opt, model)
        opt.zero_grad()
    for batch in batches:
        model(batch).mean().backward()
        step_then_clear(opt)
    for batch in batches:
        full_step(opt, model, batch)
