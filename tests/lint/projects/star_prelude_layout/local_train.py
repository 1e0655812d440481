"""Star imports of the common names, then of the project's own: the later one wins."""
from common import *
from own_parallel import *


def run(model, loader, opt):
    model = DataParallel(model)
    for x, y in loader:
        opt.zero_grad()
        with no_grad():
            F.mse_loss(model(x), y).backward()
        opt.step()
