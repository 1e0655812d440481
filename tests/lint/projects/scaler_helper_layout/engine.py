"""One mixed-precision training step per call, kept in a module of its own: only
train.py calls these, from its loops. `scaled_step` leaves the scaler's update to
its caller; `full_step` updates it itself; `hooked_step` hands the scaler to a
hook this project does not define, which may update it."""
import torch


def scaled_step(model, optimizer, scaler, batch):
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(batch).mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    return loss


def full_step(model, optimizer, scaler, batch):
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(batch).mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss


def hooked_step(model, optimizer, scaler, batch, hook):
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(batch).mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    hook.after_step(scaler)
    return loss
