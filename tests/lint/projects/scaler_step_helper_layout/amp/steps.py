"""Optimizer-step helpers handed the GradScaler: this module cannot tell it is
one but by its name, and by what the callers hand it."""


def optimizer_step(scaler, optimizer):
    scaler.step(optimizer)


def optimizer_step_and_update(scaler, optimizer):
    scaler.step(optimizer)
    scaler.update()


def scheduler_step(lr_schedule, epoch):
    lr_schedule.step(epoch)
