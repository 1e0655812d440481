"""`from . import utils` is this package's `utils.py`, a sibling."""
import torch
import torch.nn.functional as F

from . import utils


def main(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    meter = []
    model.train()
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            utils.free_memory()
            utils.update_meter(meter, loss)  # expect: TL202
        utils.evaluate(model, loader)  # expect: TL405
