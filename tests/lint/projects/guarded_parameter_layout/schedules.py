"""A helper that steps the scheduler it is handed under a bound on a value it is
handed too: whether the first epochs skip the step is the caller's to say (its loop
counter does; a setting, the same on every epoch, does not)."""


def step_schedule(sched, start):
    if start > 0:
        sched.step()


def step_schedule_when(sched, start):
    start > 0 and sched.step()


def step_schedule_unless_first(sched, start):
    sched.step() if start > 0 else None
