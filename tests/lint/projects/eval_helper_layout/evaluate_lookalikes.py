"""The same loops where the helper leaves grad off, the model in train mode, or the caller turns grad off."""
import torch

import utils


def under_no_grad(model, loader):
    utils.prepare_eval(model)
    total = 0
    with torch.no_grad():
        for x, y in loader:
            total += model(x).sum()
    return total


def grad_off_in_helper(model, loader):
    utils.eval_without_grad(model)
    total = 0
    for x, y in loader:
        total += model(x).sum()
    return total


def named_for_eval(model, loader):
    utils.set_eval_mode(model)
    total = 0
    for x, y in loader:
        total += model(x).sum()
    return total


def conditional(model, loader, frozen):
    utils.maybe_eval(model, frozen)
    total = 0
    for x, y in loader:
        total += model(x).sum()
    return total


def restored(model, loader):
    utils.eval_then_restore(model)
    total = 0
    for x, y in loader:
        total += model(x).sum()
    return total


def another_model(model, teacher, loader):
    utils.prepare_eval(teacher)
    total = 0
    for x, y in loader:
        total += model(x).sum()
    return total
