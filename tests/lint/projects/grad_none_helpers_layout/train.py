"""Helpers of grads.py that clear every gradient (`p.grad = None`, `del p.grad`)
clear the step's gradients, as `optimizer.zero_grad()` would; one that clears
the parameters a test picks freezes a part, and clears nothing of the rest."""
import torch

from grads import clear, drop, freeze_prototypes


def train(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in loader:
        model(x).sum().backward()
        opt.step()
        clear(model)


def train_dropping(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in loader:
        drop(model)
        model(x).sum().backward()
        opt.step()


def train_too_early(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in loader:
        opt.zero_grad()
        model(x).sum().backward()
        clear(model)  # expect: TL402
        opt.step()


def train_swav(model, loader, freeze_iters):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step, x in enumerate(loader):
        opt.zero_grad()
        model(x).sum().backward()
        if step < freeze_iters:
            freeze_prototypes(model)
        opt.step()


def train_mixed(model, loader, overflowed):
    from grads import MixedPrecisionTrainer

    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    trainer = MixedPrecisionTrainer(list(model.parameters()))
    for x in loader:
        model(x).sum().backward()
        trainer.optimize(opt, overflowed())
