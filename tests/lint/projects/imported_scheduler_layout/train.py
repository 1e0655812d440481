"""Schedulers and an optimizer built from the project's classes: those whose class derives
from torch's scheduler skip their first value when stepped first; the optimizer's gradients
are never cleared. The hand-made schedule and the weight averager are neither."""
import torch

from cosine import WarmupCosine
from optimizers import SignDescent, WeightAverager
from schedules import LinearRamp, WarmupPoly


class LocalCosine(WarmupPoly):
    """A schedule of this file on one of schedules.py, which derives from torch's."""


class ShortCosine(LocalCosine):
    pass


class LocalSign(SignDescent):
    pass


class LocalRamp(LinearRamp):
    """On the hand-made schedule: nothing of torch's to skip."""


class LocalAverager(WeightAverager):
    pass


class Trainer:
    def __init__(self, model, loader, iters):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        self.lr_scheduler = WarmupPoly(self.optimizer, total=iters)

    def train(self):
        self.model.train()
        for images, targets in self.loader:
            self.lr_scheduler.step()  # expect: TL404
            loss = self.model(images, targets)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()


def train_cosine(model, loader, iters):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    schedule = WarmupCosine(optimizer, total=iters)
    for images, targets in loader:
        schedule.step()  # expect: TL404
        optimizer.zero_grad()
        model(images, targets).backward()
        optimizer.step()


def train_in_order(model, loader, iters):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    schedule = WarmupCosine(optimizer, total=iters)
    for images, targets in loader:
        optimizer.zero_grad()
        model(images, targets).backward()
        optimizer.step()
        schedule.step()


def train_ramped(model, loader, iters):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    ramp = LinearRamp(optimizer, total=iters)
    for images, targets in loader:
        ramp.step()
        optimizer.zero_grad()
        model(images, targets).backward()
        optimizer.step()


def train_sign_descent(model, loader, epochs):
    optimizer = SignDescent(model.parameters())
    for epoch in range(epochs):
        for images, targets in loader:
            model(images, targets).backward()
            optimizer.step()  # expect: TL401


def train_averaged(model, loader, epochs):
    averager = WeightAverager(model)
    for epoch in range(epochs):
        for images, targets in loader:
            with torch.no_grad():
                model(images, targets)
            averager.step()


def train_local_schedule(model, loader, iters):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    schedule = LocalCosine(optimizer, total=iters)
    short = ShortCosine(optimizer, total=iters)
    ramp = LocalRamp(optimizer, total=iters)
    for images, targets in loader:
        schedule.step()  # expect: TL404
        short.step()  # expect: TL404
        ramp.step()
        optimizer.zero_grad()
        model(images, targets).backward()
        optimizer.step()


def train_local_sign_descent(model, loader, epochs):
    optimizer = LocalSign(model.parameters())
    averager = LocalAverager(model)
    for epoch in range(epochs):
        for images, targets in loader:
            model(images, targets).backward()
            optimizer.step()  # expect: TL401
            averager.step()
