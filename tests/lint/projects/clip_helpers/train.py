import torch
import torch.nn.functional as F

from gradients import backward_clip_step, clip_gradients, grad_norm


def train_clipping_too_late(model, loader, lr):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    for x, y in loader:
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
        clip_gradients(model, 1.0)  # expect: TL403


def train_clipping_in_time(model, loader, lr):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    for x, y in loader:
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        clip_gradients(model, 1.0)
        optimizer.step()
        print(grad_norm(model))  # the norm after the step, measured only


def train_with_one_helper(model, loader, lr):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    for x, y in loader:
        backward_clip_step(F.cross_entropy(model(x), y), model, optimizer)
        clip_gradients(model, 1.0)  # expect: TL403


def train_two_losses(model, loader, lr):
    """A step, then a second backward pass for another optimizer: its clip is in time."""
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    head = torch.optim.SGD(model.head.parameters(), lr=lr)
    for x, y in loader:
        backward_clip_step(F.cross_entropy(model(x), y), model, optimizer)
        head.zero_grad()
        model.head(x).pow(2).mean().backward()
        clip_gradients(model.head, 1.0)
        head.step()
