"""Epoch loops that run the training steps of steps.py, or a step of their own,
with no grad mode of their own: a caller that runs them under no_grad makes
the steps' backward raise, two or more calls away."""
import torch
import torch.nn.functional as F

from steps import shared_step, train_step


def run_epoch(model, optimizer, loader):
    for images, labels in loader:
        train_step(model, optimizer, images, labels)


def run_phase(model, optimizer, loader, train=True):
    for images, labels in loader:
        shared_step(model, optimizer, images, labels, train=train)


def run_if(model, optimizer, loader, update=False):
    for images, labels in loader:
        if update:
            train_step(model, optimizer, images, labels)


def run_eval(model, optimizer, loader):
    for images, labels in loader:
        shared_step(model, optimizer, images, labels, train=False)


def run_refined(model, optimizer, loader):
    with torch.enable_grad():
        run_epoch(model, optimizer, loader)


def run_switched(model, optimizer, loader):
    with torch.set_grad_enabled(True):
        run_epoch(model, optimizer, loader)


def run_checked(model, optimizer, loader):
    if model.training:
        run_epoch(model, optimizer, loader)


def run_tolerant(model, optimizer, loader):
    try:
        run_epoch(model, optimizer, loader)
    except RuntimeError:
        pass


def run_twice(model, optimizer, loader):
    run_epoch(model, optimizer, loader)
    run_epoch(model, optimizer, loader)


def _local_step(model, optimizer, images, labels):
    loss = F.cross_entropy(model(images), labels)
    loss.backward()
    optimizer.step()


def run_local(model, optimizer, loader):
    for images, labels in loader:
        _local_step(model, optimizer, images, labels)


def ping(model, optimizer, loader, rounds):
    if rounds:
        pong(model, optimizer, loader, rounds - 1)


def pong(model, optimizer, loader, rounds):
    ping(model, optimizer, loader, rounds)
    run_epoch(model, optimizer, loader)


def resume(model, optimizer, loader, rounds):
    run_epoch(model, optimizer, loader)
    if rounds:
        restart(model, optimizer, loader, rounds - 1)


def restart(model, optimizer, loader, rounds):
    resume(model, optimizer, loader, rounds)


def linger(model, optimizer, loader, rounds):
    run_eval(model, optimizer, loader)
    if rounds:
        wait(model, optimizer, loader, rounds - 1)


def wait(model, optimizer, loader, rounds):
    linger(model, optimizer, loader, rounds)
