"""The float16 flag is a module constant that nothing rebinds, passed to the step
directly and through the wrapper."""
from steps import loss_step, run_step

USE_AMP = True


def train(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        loss = loss_step(model, x, y, use_amp=USE_AMP)
        loss.backward()  # expect: TL103
        optimizer.step()


def train_wrapped(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        run_step(model, x, y, use_amp=USE_AMP).backward()  # expect: TL103
        optimizer.step()
