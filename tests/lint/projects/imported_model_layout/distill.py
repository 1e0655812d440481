import torch
import torch.nn as nn
import torch.nn.functional as F

from nets import Backbone, Ensemble


class Student(Backbone):
    def __init__(self, classes=10):
        super().__init__(32)
        self.out = nn.Linear(32, classes)

    def forward(self, x):
        return self.out(super().forward(x))


class Committee(Ensemble):
    """Saved models voting together; not a module either."""


def train_student(loader, epochs):
    student = Student()
    student.eval()  # expect: TL405
    optimizer = torch.optim.AdamW(student.parameters(), lr=3e-4)
    for _ in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            F.cross_entropy(student(x), y).backward()
            optimizer.step()


def tune_committee(loader, paths):
    committee = Committee(paths)
    committee.eval()
    optimizer = torch.optim.AdamW(committee.parameters(), lr=3e-4)
    for x, y in loader:
        optimizer.zero_grad()
        F.cross_entropy(committee(x), y).backward()
        optimizer.step()
