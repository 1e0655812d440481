"""Wrappers that hand their caller's scheduler on to another module's guarded helper,
with what reaches its bound: their own parameter (with a default), a number, nothing
(the helper's default), or a value they compute."""
from schedules import step_from_one, step_schedule


def warm(sched, e=3):
    step_schedule(sched, e)


def hold(sched, e=0):
    step_schedule(sched, e)


def plain(sched):
    step_from_one(sched)


def idle(sched):
    step_schedule(sched)


def given(sched):
    step_schedule(sched, 3)


def never(sched):
    step_schedule(sched, 0)


def computed(sched, cfg):
    step_schedule(sched, len(cfg))
