import torch

from schedules import step_schedule, step_schedule_unless_first, step_schedule_when
from warmup import warm


def main(model, loader, cfg):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    for epoch in range(cfg.epochs):
        step_schedule(scheduler, cfg.start)  # expect: TL404
        step_schedule_when(scheduler, cfg.start)  # expect: TL404
        step_schedule_unless_first(scheduler, cfg.start)  # expect: TL404
        warm(scheduler, cfg.start)  # expect: TL404
        warm(scheduler, 0)
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()


def counted(model, loader, cfg):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    done = 0
    for epoch in range(cfg.epochs):
        step_schedule(scheduler, epoch)
        step_schedule_when(scheduler, epoch)
        step_schedule_unless_first(scheduler, epoch)
        step_schedule(scheduler, done)
        warm(scheduler, epoch)
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        done = done + 1
