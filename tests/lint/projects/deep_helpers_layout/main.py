"""Loops whose step is two imports away: engine.py's helpers clear gradients and
free memory through utils.py and the tools package. Linted alone, as a
pre-commit hook names it, this file gets what the whole project's run gives it."""
import torch

from engine import backward, step_only, train_step, train_step_freeing, train_step_tools
from utils import maybe_release


def fit(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in loader:
        train_step(model, optimizer, x)


def fit_freeing(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in loader:
        optimizer.zero_grad()
        train_step_freeing(model, optimizer, x)  # expect: TL201


def fit_with_tools(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in loader:
        train_step_tools(model, optimizer, x)


def fit_releasing_now_and_then(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step, x in enumerate(loader):
        train_step(model, optimizer, x)
        maybe_release(step)


def fit_backward_helper(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in loader:
        backward(model(x).sum())
        optimizer.step()  # expect: TL401


def fit_backward_helper_clearing(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in loader:
        optimizer.zero_grad()
        backward(model(x).sum())
        optimizer.step()


def fit_stepping_through_helper(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in loader:
        model(x).sum().backward()
        step_only(optimizer)  # expect: TL401
