"""A helper that steps the scheduler it is handed under a bound on a value it is
handed too: whether the first epochs skip the step is the caller's to say (its loop
counter does; a setting, the same on every epoch, does not)."""


def step_schedule(sched, start):
    if start > 0:
        sched.step()
