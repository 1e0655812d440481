"""The same builders' schedules stepped after the optimizer, or not known to skip anything."""
from optimization import build_optim, build_plateau, build_registered, build_schedule_first


def per_epoch(model, loader, cfg):
    opt, sched = build_optim(model, cfg)
    for epoch in range(cfg.epochs):
        for x, y in loader:
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()
        sched.step()


def misnamed(model, loader, cfg):
    sched, opt = build_optim(model, cfg)  # `sched` is the optimizer, stepped first
    for x, y in loader:
        opt.zero_grad()
        model(x).sum().backward()
        sched.step()
        opt.step()


def swapped_in_order(model, loader, cfg):
    sched, opt = build_schedule_first(model, cfg)
    for x, y in loader:
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()
        sched.step()


def plateau(model, loader, cfg):
    opt, sched = build_plateau(model, cfg)  # may be driven by a metric
    for x, y in loader:
        opt.zero_grad()
        model(x).sum().backward()
        sched.step()
        opt.step()


def registered(model, loader, cfg):
    opt, sched = build_registered(model, cfg)  # not known to be torch's kind of scheduler
    for x, y in loader:
        opt.zero_grad()
        model(x).sum().backward()
        sched.step()
        opt.step()



def first_run(model, loader, cfg):
    opt, sched = build_optim(model, cfg)
    for x, y in loader:
        model(x).sum().backward()
        model.step()
        for _ in range(cfg.processes):
            sched.step()


def second_run(model, loader, cfg):
    opt, sched = build_optim(model, cfg)  # a run of its own: the first run's schedule is not this optimizer's
    for x, y in loader:
        model(x).sum().backward()
        opt.step()
        sched.step()
        opt.zero_grad()


if __name__ == "__main__":
    for stage in (1, 2):
        first_run(None, [], stage)
        second_run(None, [], stage)
