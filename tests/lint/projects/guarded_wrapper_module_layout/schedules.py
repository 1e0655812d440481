"""A helper that steps the scheduler it is handed under a bound on a value it is handed,
and wrappers of it in the same module that give that value: their own parameter (with
a default), a number, or nothing (the helper's default, which fails the bound)."""


def step_schedule(sched, epoch=0):
    if epoch > 0:
        sched.step()


def warm(sched, e=3):
    step_schedule(sched, e)


def hold(sched, e=0):
    step_schedule(sched, e)


def given(sched):
    step_schedule(sched, 3)


def never(sched):
    step_schedule(sched, 0)


def idle(sched):
    step_schedule(sched)
