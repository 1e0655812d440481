import torch
import torch.nn as nn


class Backbone(nn.Module):
    def __init__(self, width=64):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(32, width), nn.BatchNorm1d(width), nn.ReLU(), nn.Dropout(0.2))

    def forward(self, x):
        return self.body(x)


class Net(Backbone):
    def __init__(self, classes=10):
        super().__init__(64)
        self.head = nn.Linear(64, classes)

    def forward(self, x):
        return self.head(super().forward(x))


class Ensemble:
    """Averages the scores of saved models; not a module."""

    def __init__(self, paths=()):
        self.members = [torch.jit.load(path) for path in paths]

    def eval(self):
        for member in self.members:
            member.eval()
        return self

    def parameters(self):
        return [p for member in self.members for p in member.parameters()]

    def __call__(self, x):
        return sum(member(x) for member in self.members) / len(self.members)


def set_train(model):
    model.train()
