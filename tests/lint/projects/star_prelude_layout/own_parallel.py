"""The project's own `DataParallel` and `no_grad`, under torch's names."""
from contextlib import contextmanager


class DataParallel:
    def __init__(self, module):
        self.module = module

    def __call__(self, *args):
        return self.module(*args)


@contextmanager
def no_grad():
    yield
