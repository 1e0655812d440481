"""The backward pass runs in another module's helper: a clear after it, written
here or through a helper, empties what the step then applies."""
import torch

from engine import grads as G
from engine.grads import backward as run_backward, clear_grads


def train_clearing_late(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in loader:
        run_backward(model(x).mean())
        optimizer.zero_grad()  # expect: TL402
        optimizer.step()


def train_clearing_late_through_helper(model, loader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for x in loader:
        G.backward(model(x).mean())
        clear_grads(optimizer)  # expect: TL402
        optimizer.step()


def train(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in loader:
        clear_grads(optimizer)
        run_backward(model(x).mean())
        optimizer.step()


def train_gan(generator, discriminator, loader):
    """The discriminator's backward, then the generator's clear, backward and step."""
    opt_g = torch.optim.Adam(generator.parameters())
    opt_d = torch.optim.Adam(discriminator.parameters())
    for z, real in loader:
        opt_d.zero_grad()
        G.backward(discriminator(real).mean() - discriminator(generator(z).detach()).mean())
        opt_g.zero_grad()
        opt_d.step()
        run_backward(-discriminator(generator(z)).mean())
        opt_g.step()
