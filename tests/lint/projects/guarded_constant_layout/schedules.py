"""Helpers that step the scheduler they are handed under a bound on a value the caller
gives: a number written in the call holds the bound on every call or on none."""


def step_schedule(sched, epoch=0):
    if epoch > 0:
        sched.step()


def unless_given(sched, epoch=None):
    if epoch is not None and epoch >= 0:
        sched.step()
