import torch

from schedules import step_schedule, unless_given


def main(model, loader, cfg):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    for epoch in range(cfg.epochs):
        step_schedule(scheduler, 3)  # expect: TL404
        step_schedule(scheduler, epoch=0.5)  # expect: TL404
        unless_given(scheduler, 0)  # expect: TL404
        step_schedule(scheduler, 0)
        step_schedule(scheduler, epoch=-1)
        unless_given(scheduler, None)
        unless_given(scheduler, epoch=-2)
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
