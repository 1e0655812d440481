import torch

from hooks import install_scale_logger, install_update_hook
from setup import prepare


def train(model, optimizer, loader):
    # the hook updates the scaler after every optimizer step
    scaler = torch.amp.GradScaler("cuda")
    install_update_hook(optimizer, scaler)
    for x, y in loader:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)


def train_prepared(model, optimizer, loader):
    # installed two calls away
    scaler = torch.amp.GradScaler("cuda")
    prepare(model, optimizer, scaler)
    for x, y in loader:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)


def train_logged(model, optimizer, loader, log):
    # the hook only reads the scale: nothing updates the scaler
    scaler = torch.amp.GradScaler("cuda")
    install_scale_logger(optimizer, scaler, log)
    for x, y in loader:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)  # expect: TL104
