"""Helpers that keep what they are given in a list, by each way a list takes elements."""
import collections

RECENT = collections.deque(maxlen=50)


def record(history, value):
    history.append(value)


def record_first(history, value):
    history.insert(0, value)


def record_all(history, value):
    history.extend([value])


def remember(value):
    RECENT.appendleft(value)


def record_number(history, value):
    history.extend([value.item()])


class LossMeter:
    def __init__(self):
        self.values = []

    def update(self, value):
        self.values.append(value)
