import torch

from schedules import step_schedule
from warmup import computed, given, hold, idle, never, plain, warm


def warm_here(sched, e=3):
    step_schedule(sched, e)  # expect: TL404


def hold_here(sched, e=0):
    step_schedule(sched, e)


def main(model, loader, cfg):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    for epoch in range(cfg.epochs):
        warm(scheduler)  # expect: TL404
        hold(scheduler)
        plain(scheduler)  # expect: TL404
        idle(scheduler)
        given(scheduler)  # expect: TL404
        never(scheduler)
        computed(scheduler, cfg)
        warm(scheduler, 0)
        warm(scheduler, epoch)
        hold(scheduler, 2)  # expect: TL404
        warm_here(scheduler)
        hold_here(scheduler)
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
