"""Helpers that step the scheduler they are handed under a bound: on the epoch they are
handed (the caller's loop counter: the first epochs skip the step), or on a setting of
this module (the same on every epoch: the step runs on all of them or on none)."""
WARMUP_EPOCHS = 5


def step_after_first(scheduler, epoch):
    if epoch > 0:
        scheduler.step()


def step_during_warmup(scheduler):
    if WARMUP_EPOCHS > 0:
        scheduler.step()
