import torch.nn.functional as F

import history as logs
from history import LossMeter, record, record_all, record_first, record_number, remember


def train(model, loader, opt):
    history, newest, kept, numbers = [], [], [], []
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        record(history, loss)  # expect: TL202
        record_first(newest, loss)  # expect: TL202
        record_all(kept, loss)  # expect: TL202
        remember(loss)  # expect: TL202
        record_number(numbers, loss)
    return numbers


def train_steps(model, loader, opt):
    for x, y in loader:
        step_log = []
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        record(step_log, loss)
        print(step_log)


def train_meters(model, loader, opt):
    epoch_meter = LossMeter()
    seen = []
    for x, y in loader:
        step_meter = LossMeter()
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step_meter.update(loss)
        epoch_meter.update(loss)  # expect: TL202
        logs.record(seen, loss)  # expect: TL202
        print(step_meter.values)


class Trainer:
    def __init__(self, model, opt):
        self.model, self.opt = model, opt
        self.losses, self.step_log, self.numbers = [], [], []
        self.history = {"train": [], "step": []}

    def training_step(self, x, y):
        self.step_log = []
        self.history["step"] = []
        loss = F.cross_entropy(self.model(x), y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        record(self.losses, loss)  # expect: TL202
        record(self.step_log, loss)
        record_number(self.numbers, loss)
        record(self.history["train"], loss)  # expect: TL202
        record(self.history["step"], loss)

    def fit(self, loader):
        for x, y in loader:
            self.training_step(x, y)
