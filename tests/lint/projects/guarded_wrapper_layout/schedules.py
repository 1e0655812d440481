"""Helpers that step the scheduler they are handed under a bound on a value a call may
leave to its default: one that fails the bound (`epoch=0`), one that passes it."""


def step_schedule(sched, epoch=0):
    if epoch > 0:
        sched.step()


def step_from_one(sched, epoch=1):
    if epoch > 0:
        sched.step()
