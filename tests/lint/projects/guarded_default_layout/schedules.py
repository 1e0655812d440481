"""Helpers that step the scheduler they are handed under a bound on a value a call may
leave to its default: a constant, so the bound holds on every call or on none."""

FIRST_EPOCH = 1


def step_schedule(sched, epoch=1):
    if epoch > 0:
        sched.step()


def from_setting(sched, epoch=FIRST_EPOCH):
    if epoch > 0:
        sched.step()


def hold_schedule(sched, epoch=0):
    if epoch > 0:
        sched.step()


def unless_given(sched, epoch=None):
    if epoch is not None and epoch >= 0:
        sched.step()
