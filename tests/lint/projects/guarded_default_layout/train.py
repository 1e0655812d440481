import torch

from schedules import from_setting, hold_schedule, step_schedule, unless_given


def main(model, loader, cfg):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    for epoch in range(cfg.epochs):
        step_schedule(scheduler)  # expect: TL404
        from_setting(sched=scheduler)  # expect: TL404
        hold_schedule(scheduler)
        unless_given(scheduler)
        step_schedule(scheduler, epoch)
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
