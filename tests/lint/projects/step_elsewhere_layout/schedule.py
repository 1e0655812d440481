"""Epoch loops whose optimizer steps in engine.py (d2l's kaggle-cifar10): the
scheduler steps at the end of each epoch. `train()` runs twice, each time with
a scheduler of its own: the first run's last scheduler step skips nothing of
the second's schedule."""
import torch

from engine import step_schedule, train_batch


def train(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 4, 0.9)
    for epoch in range(epochs):
        for x, y in loader:
            train_batch(model, optimizer, x, y)
        scheduler.step()


def train_stepping_first(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 4, 0.9)
    for epoch in range(epochs):
        scheduler.step()  # expect: TL404
        for x, y in loader:
            train_batch(model, optimizer, x, y)



def train_helper_stepping_first(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 4, 0.9)
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        step_schedule(scheduler)  # expect: TL404
        optimizer.step()


def train_helper_in_order(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 4, 0.9)
    for epoch in range(epochs):
        for x, y in loader:
            train_batch(model, optimizer, x, y)
        step_schedule(scheduler)


def train_gan(gen, disc, loader):
    # the discriminator's schedule steps after its own optimizer, before the generator's
    opt_g = torch.optim.Adam(gen.parameters())
    opt_d = torch.optim.Adam(disc.parameters())
    sched_d = torch.optim.lr_scheduler.StepLR(opt_d, 4, 0.9)
    for x in loader:
        opt_d.zero_grad()
        disc(x).mean().backward()
        opt_d.step()
        step_schedule(sched_d)
        opt_g.zero_grad()
        disc(gen(x)).mean().backward()
        opt_g.step()


def train_with_stepper(model, loader, stepper):
    # `stepper` may be anything: nothing here says it is a scheduler
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        step_schedule(stepper)
        optimizer.step()


train(torch.nn.Linear(2, 1), [], 10)
train(torch.nn.Linear(2, 1), [], 10)
train_stepping_first(torch.nn.Linear(2, 1), [], 10)
