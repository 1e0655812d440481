"""Picks a loop by name and runs it."""
import torch

from trainkit.engine import AveragingLoop
from trainkit.tasks.logging_loops import KeepsFloats, SummingReport
from trainkit.tasks.mixed import ScaledLoop

LOOPS = {"average": AveragingLoop, "floats": KeepsFloats, "scaled": ScaledLoop}


def main(model, loader, name="scaled"):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    if name == "plain":
        SummingReport(model, optimizer, loader).run()
    else:
        LOOPS[name](model, optimizer, loader).fit(epochs=3)
