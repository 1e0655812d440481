"""Loops that validate through an evaluator object built from the trained model."""
import torch

from evaluators import Evaluator, Probe, RestoringEvaluator


def fit(model, loader, val_loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    evaluator = Evaluator(model, val_loader)
    model.train()
    for epoch in range(epochs):
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
        evaluator.run()  # expect: TL405


def fit_each_epoch_in_train_mode(model, loader, val_loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    evaluator = Evaluator(model, val_loader)
    for epoch in range(epochs):
        model.train()
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
        evaluator.run()


def fit_restoring(model, loader, val_loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    evaluator = RestoringEvaluator(model, val_loader)
    model.train()
    for epoch in range(epochs):
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
        evaluator.run()


def fit_with_probe(model, loader, make, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    probe = Probe(model, make)
    model.train()
    for epoch in range(epochs):
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
        probe.run()


class Trainer:
    def __init__(self, model, loader, val_loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.AdamW(model.parameters())
        self.evaluator = Evaluator(model, val_loader)

    def fit(self, epochs):
        self.model.train()
        for epoch in range(epochs):
            for x in self.loader:
                self.optimizer.zero_grad()
                self.model(x).sum().backward()
                self.optimizer.step()
            self.evaluator.run()  # expect: TL405
