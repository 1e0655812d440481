"""The template method and its override in the file that trains."""
import torch
import torch.nn.functional as F


class Step:
    def __call__(self, loss, optimizer):
        self.apply(loss, optimizer)

    def apply(self, loss, optimizer):
        loss.backward()
        optimizer.step()


class ClearingStep(Step):
    def apply(self, loss, optimizer):
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_with_the_override(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    step = ClearingStep()
    for x, y in loader:
        step(F.cross_entropy(model(x), y), optimizer)


def train_with_the_base(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    step = Step()
    for x, y in loader:
        step(F.cross_entropy(model(x), y), optimizer)  # expect: TL401
