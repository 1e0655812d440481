"""`total_loss += loss` keeps every step's autograd graph alive.
Healthy twin: `total_loss += loss.item()`. Expected: tensor_leak on total_loss, at the `+=` line.
`two-optimizers`: the body and the head have an optimizer each, both stepped after
one backward pass (the same leak, the same step).
`history`: the losses kept in a dict of lists, as Keras keeps its history
(`history['loss'].append(loss)`). Expected: tensor_leak on history['loss'].
`ema`: an EMA copy of the model updated in place outside `torch.no_grad()`: its
parameters pick up the model's graph every step. Expected: tensor_leak on `ema`, at the
update line. `ema-local`: the same made in the training function by `copy.deepcopy` and
updated with `ema_p.mul_(decay).add_(p, alpha=1 - decay)`. Expected: tensor_leak on
`ema` (in fit), at the update line, not the deepcopy. `ema-local healthy`: the update
under `torch.no_grad()`. Expected: nothing. `ema-local helper`: the update in a function
the EMA model is handed to (`fit_by_helper`). Expected: tensor_leak on `ema`, at the update line there."""
import contextlib
import copy
import sys

import torch
from torch import nn

healthy = "healthy" in sys.argv[1:]
two_optimizers = "two-optimizers" in sys.argv[1:]
keras_history = "history" in sys.argv[1:]
ema_update = "ema" in sys.argv[1:]
ema_local = "ema-local" in sys.argv[1:]
torch.manual_seed(0)


def train(model, optimizers, steps):
    total_loss = 0.0
    history = {"loss": [], "step": []}
    for step in range(steps):
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        loss = nn.functional.mse_loss(model(x), y)
        for opt in optimizers:
            opt.zero_grad()
        loss.backward()
        for opt in optimizers:
            opt.step()
        if ema_update:
            for averaged, trained in zip(ema.parameters(), model.parameters()):
                averaged.mul_(0.99).add_(0.01 * trained)
            total_loss += loss.item()
        elif keras_history:
            history["loss"].append(loss)
            history["step"].append(step)
            total_loss += loss.item()
        elif healthy:
            total_loss += loss.item()
        else:
            total_loss += loss
    return float(total_loss) / steps


def update_average(average, model, decay):
    for averaged, trained in zip(average.parameters(), model.parameters()):
        averaged.lerp_(trained, 1 - decay)


def fit(model, steps, decay=0.9):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    ema = copy.deepcopy(model).requires_grad_(False)
    for step in range(steps):
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        with torch.no_grad() if healthy else contextlib.nullcontext():
            for ema_p, p in zip(ema.parameters(), model.parameters()):
                ema_p.mul_(decay).add_(p, alpha=1 - decay)
    return nn.functional.mse_loss(ema(x), y).item()


def fit_by_helper(model, steps, decay=0.9):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    ema = copy.deepcopy(model).requires_grad_(False)
    for step in range(steps):
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        update_average(ema, model, decay=decay)
    return nn.functional.mse_loss(ema(x), y).item()


model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
if ema_local:
    print(round((fit_by_helper if "helper" in sys.argv[1:] else fit)(model, 30), 4))
    sys.exit(0)
if two_optimizers:
    optimizers = [torch.optim.SGD(model[0].parameters(), lr=0.01), torch.optim.SGD(model[2].parameters(), lr=0.01)]
else:
    optimizers = [torch.optim.SGD(model.parameters(), lr=0.01)]
ema = copy.deepcopy(model).requires_grad_(False)
print(round(train(model, optimizers, 30), 3) >= 0)
