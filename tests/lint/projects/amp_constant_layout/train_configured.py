"""The module's flag may be rebound by `configure` (`global`), and the wrapper is
handed float32 or left to its default: no float16 path is known to be taken."""
from steps import loss_step, run_step

USE_AMP = True


def configure(args):
    global USE_AMP
    USE_AMP = args.amp


def train(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        loss = loss_step(model, x, y, use_amp=USE_AMP)
        loss.backward()
        optimizer.step()


def train_wrapped(model, loader, optimizer, full_precision=True):
    for x, y in loader:
        optimizer.zero_grad()
        if full_precision:
            run_step(model, x, y, use_amp=False).backward()
        else:
            run_step(model, x, y).backward()
        optimizer.step()
