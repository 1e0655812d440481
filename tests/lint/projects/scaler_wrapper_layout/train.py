"""Gradient accumulation through the loss scalers of amp_wrappers."""
import torch

from amp_wrappers import AmpBackward, AmpStepper, ClippingLossScaler, LossScaler, unscale_and_clip


def train_timm_style(model, criterion, loader, optimizer, accum):
    loss_scaler = LossScaler()
    for i, (x, y) in enumerate(loader):
        need_update = (i + 1) % accum == 0
        with torch.autocast("cuda"):
            loss = criterion(model(x), y) / accum
        loss_scaler(loss, optimizer, clip_grad=1.0, parameters=model.parameters(), need_update=need_update)
        if need_update:
            optimizer.zero_grad()


def train_accumulating(model, criterion, loader, optimizer, accum):
    loss_scaler = ClippingLossScaler()
    for i, (x, y) in enumerate(loader):
        with torch.autocast("cuda"):
            loss = criterion(model(x), y) / accum
        loss_scaler(loss, optimizer, model.parameters(), update_grad=(i + 1) % accum == 0)  # expect: TL108
        if (i + 1) % accum == 0:
            optimizer.zero_grad()


def train_accumulating_by_flag(model, criterion, loader, optimizer, accum):
    loss_scaler = ClippingLossScaler()
    for step, (x, y) in enumerate(loader, 1):
        update = step % accum == 0
        with torch.autocast("cuda"):
            loss = criterion(model(x), y) / accum
        loss_scaler(loss, optimizer, model.parameters(), 1.0, update)  # expect: TL108
        if update:
            optimizer.zero_grad()


def train_every_step(model, criterion, loader, optimizer):
    loss_scaler = ClippingLossScaler()
    for x, y in loader:
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        loss_scaler(loss, optimizer, model.parameters())
        optimizer.zero_grad()


def train_with_setting(model, criterion, loader, optimizer, args):
    loss_scaler = ClippingLossScaler()
    for x, y in loader:
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        loss_scaler(loss, optimizer, model.parameters(), update_grad=not args.frozen)
        optimizer.zero_grad()


def train_with_helper(model, criterion, loader, optimizer, accum):
    scaler = torch.amp.GradScaler("cuda")
    for i, (x, y) in enumerate(loader):
        with torch.autocast("cuda"):
            loss = criterion(model(x), y) / accum
        scaler.scale(loss).backward()
        unscale_and_clip(scaler, optimizer, model, (i + 1) % accum == 0)  # expect: TL108
        if (i + 1) % accum == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()


def train_with_helper_on_step(model, criterion, loader, optimizer, accum):
    scaler = torch.amp.GradScaler("cuda")
    for i, (x, y) in enumerate(loader):
        with torch.autocast("cuda"):
            loss = criterion(model(x), y) / accum
        scaler.scale(loss).backward()
        if (i + 1) % accum == 0:
            unscale_and_clip(scaler, optimizer, model, True)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()


def train_split_accumulating(model, criterion, loader, optimizer, accum):
    amp = AmpBackward()
    for i, (x, y) in enumerate(loader):
        with torch.autocast("cuda"):
            loss = criterion(model(x), y) / accum
        amp.backward(loss, optimizer, model.parameters())  # expect: TL108
        if (i + 1) % accum == 0:
            amp.step(optimizer)
            optimizer.zero_grad()


def train_split_every_step(model, criterion, loader, optimizer):
    amp = AmpBackward()
    for x, y in loader:
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        amp.backward(loss, optimizer, model.parameters())
        amp.step(optimizer)
        optimizer.zero_grad()


def train_stepper_accumulating(model, criterion, loader, optimizer, accum):
    amp = AmpStepper()
    for i, (x, y) in enumerate(loader):
        with torch.autocast("cuda"):
            loss = criterion(model(x), y) / accum
        amp.backward(loss)
        if (i + 1) % accum == 0:
            amp.step(optimizer, model.parameters())
            optimizer.zero_grad()
