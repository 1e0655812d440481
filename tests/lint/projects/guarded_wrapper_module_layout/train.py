import torch

from schedules import given, hold, idle, never, step_schedule, warm


def main(model, loader, cfg):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    for epoch in range(cfg.epochs):
        warm(scheduler)  # expect: TL404
        hold(scheduler, e=1)  # expect: TL404
        given(scheduler)  # expect: TL404
        step_schedule(scheduler, cfg.start)  # expect: TL404
        hold(scheduler)
        warm(scheduler, 0)
        warm(scheduler, epoch)
        never(scheduler)
        idle(scheduler)
        step_schedule(scheduler, epoch)
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
