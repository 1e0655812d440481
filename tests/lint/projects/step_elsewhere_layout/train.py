"""Loops whose step is a function of engine.py, given an optimizer built here:
the loops that never clear gradients are flagged at the call."""
import torch

from engine import (
    StepMixin,
    finetune,
    finetune_accumulating,
    finetune_clears,
    train_one_epoch,
    train_one_epoch_clears,
    train_step,
    train_step_resets,
)
from trainer import Trainer


def main(model, criterion, loader, tools, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for epoch in range(epochs):
        train_one_epoch(model, criterion, optimizer, loader, "cpu")  # expect: TL401
    for epoch in range(epochs):
        train_one_epoch_clears(model, criterion, optimizer, loader)
    for x, y in loader:
        train_step(model, optimizer, x, y)  # expect: TL401
    for x, y in loader:
        optimizer.zero_grad(set_to_none=True)
        train_step(model, optimizer, x, y)
    for x, y in loader:
        train_step_resets(model, optimizer, x, y, tools)
    for x, y in loader:
        model.zero_grad()
        train_step(model, optimizer, x, y)


def probe(model, loader, stepper):
    # `stepper` may be anything: nothing here says it is an optimizer
    for x, y in loader:
        train_step(model, stepper, x, y)
    finetune(model, loader, stepper)


def tune(model, loader):
    # each function holds the whole loop, called once
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    finetune(model, loader, optimizer)  # expect: TL401
    finetune_clears(model, loader, optimizer)
    finetune_accumulating(model, loader, optimizer, 4)


class Runner(StepMixin):
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.AdamW(model.parameters())

    def fit(self):
        for batch in self.loader:
            self.training_step(batch)  # expect: TL401


class ClearingRunner(StepMixin):
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.AdamW(model.parameters())

    def fit(self):
        for batch in self.loader:
            self.optimizer.zero_grad()
            self.training_step(batch)


def sweep(model, loader):
    for max_epochs in (1, 2, 4):
        trainer = Trainer(max_epochs)
        trainer.fit(model, loader)


def detect(model, loader, epochs):
    from engine import Detector

    trainer = Detector(model).cuda()
    for epoch in range(epochs):
        for x, y in loader:
            trainer.train_step(x, y)  # expect: TL401
