import torch

import amp.steps as S
from amp.steps import optimizer_step_and_update as step_and_update


def train_never_updating(model, loader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    for x in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda"):
            loss = model(x).mean()
        scaler.scale(loss).backward()
        S.optimizer_step(scaler, optimizer)  # expect: TL104


def train_updating_here(model, loader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    for x in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda"):
            loss = model(x).mean()
        scaler.scale(loss).backward()
        S.optimizer_step(scaler, optimizer)
        scaler.update()


def train(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    schedule = torch.optim.lr_scheduler.StepLR(optimizer, 10)
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(epochs):
        for x in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda"):
                loss = model(x).mean()
            scaler.scale(loss).backward()
            step_and_update(scaler, optimizer)
        S.scheduler_step(schedule, epoch)
