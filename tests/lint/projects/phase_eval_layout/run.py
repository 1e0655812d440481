"""Epoch loops that hand the model to a training phase of another module, then score it."""
import torch

from phases import fit_head, fit_outputs, train_one_epoch
from scoring import features_of, mean_loss


def fit(model, loader, val_loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        train_one_epoch(model, loader, optimizer)
        model.eval()
        print(epoch, mean_loss(model, val_loader))  # expect: TL406


def fit_scored_without_grad(model, loader, val_loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        train_one_epoch(model, loader, optimizer)
        model.eval()
        with torch.no_grad():
            print(epoch, mean_loss(model, val_loader))


def fit_on_frozen_statistics(backbone, head, loader, epochs):
    # BatchNorm statistics frozen; the head's phase back-propagates into the backbone
    optimizer = torch.optim.SGD([*backbone.parameters(), *head.parameters()], lr=0.1)
    for epoch in range(epochs):
        backbone.eval()
        features = features_of(backbone, loader)
        fit_head(head, features, optimizer)


class CachedOutputs:
    """What the helper gives is kept (on the object, in a list) for the phase that trains on it."""

    def __init__(self, model, loader):
        self.model, self.loader = model, loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def fit(self, epochs):
        for epoch in range(epochs):
            self.model.eval()
            self.outputs = features_of(self.model, self.loader)
            self.replay()

    def replay(self):
        fit_outputs(self.model, self.outputs, self.optimizer)

    def fit_listed(self, epochs):
        for epoch in range(epochs):
            kept = []
            self.model.eval()
            kept.append(features_of(self.model, self.loader))
            fit_outputs(self.model, kept[-1], self.optimizer)
