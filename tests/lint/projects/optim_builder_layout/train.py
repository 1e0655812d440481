"""Schedulers from another module's builders, stepped before the optimizer."""
import optimization
from optimization import build_optim, build_parts, build_schedule_first


def train(model, loader, cfg):
    opt, sched = build_optim(model, cfg)
    for x, y in loader:
        loss = model(x).sum()
        loss.backward()
        sched.step()  # expect: TL404
        opt.step()
        opt.zero_grad()


def train_through_module(model, loader, cfg):
    sched, opt = optimization.build_schedule_first(model, cfg)
    for x, y in loader:
        opt.zero_grad()
        sched.step()  # expect: TL404
        model(x).sum().backward()
        opt.step()


def train_parts(model, loader, cfg):
    parts = build_parts(model, cfg)
    for x, y in loader:
        parts["optimizer"].zero_grad()
        model(x).sum().backward()
        parts["scheduler"].step()  # expect: TL404
        parts["optimizer"].step()


def train_epochs(model, loader, cfg):
    optimizer, scheduler = build_schedule_first(model, cfg)  # the names swapped: what each holds is the builder's
    for epoch in range(cfg.epochs):
        optimizer.step()  # expect: TL404
        for x, y in loader:
            scheduler.zero_grad()
            model(x).sum().backward()
            scheduler.step()
