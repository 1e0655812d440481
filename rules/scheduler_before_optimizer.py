import libcst as cst

from trainlint.analysis.scopes import argument_slots

from trainlint.analysis.dataflow import constructor_argument
from trainlint.analysis.flow import Facts
from trainlint.analysis.guards import may_change, reaching_constants, skipped_at_first
from trainlint.analysis.loops import optimizer_step, run_each_iteration, scheduler_step
from trainlint.analysis.receivers import OPTIMIZER, SCHEDULER, Binding
from trainlint.analysis.training import loops_within, method_call
from trainlint.rule import Rule
from trainlint.summaries import SCHEDULER_STEP, STEP, fails_for

# a scheduler driven by a metric: stepping it first skips no schedule value
_METRIC_DRIVEN = "ReduceLROnPlateau"


class SchedulerBeforeOptimizer(Rule):
    """
    ## What it does
    Flags `scheduler.step()` reached before the optimizer step (`opt.step()`
    or `scaler.step(opt)`) in the same iteration of a loop, along some path
    (the file's own helper functions included). Only schedulers built from
    `torch.optim.lr_scheduler` or a known schedule factory
    (`transformers.get_*_schedule*`) count, also a class of that module looked
    up by name (`getattr(lr_scheduler, cfg.name)(optimizer)`) and a class of the
    file that subclasses torch's, directly or through another class of the file,
    or of another module of the project (`from utils.lr import WarmupPolyLR`, a
    `class WarmupPolyLR(_LRScheduler)` there), through the project's files.

    ## Why is this bad?
    Since PyTorch 1.1 a scheduler's `step()` must follow the optimizer's:
    stepping it first moves the learning rate on before the first update
    uses it, so the first value of the schedule (often the warm-up start) is
    skipped and the whole schedule runs one step early. PyTorch warns about
    it at run time, once, where it is easy to miss.

    ## Example
    ```python
    import torch
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1000)
    for x, y in loader:
        scheduler.step()
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
    ```

    ## Use instead
    ```python
    for x, y in loader:
        loss.backward()
        optimizer.step()
        scheduler.step()
    ```

    ## Fix safety
    No fix: moving the call shifts the learning rate of every step, which
    the author should confirm.

    ## Limitations
    A scheduler class of the project that is not a subclass of torch's
    (which may be meant to be stepped first; a subclass of `LRScheduler` /
    `_LRScheduler` skips its first value as torch's own do, and is checked),
    a class looked up by name in a module other than torch's
    (`getattr(schedules, cfg.name)`),
    `ReduceLROnPlateau` (driven by a metric, not a step count), `step(...)`
    given a metric or an epoch, and a scheduler whose `last_epoch` the file
    sets by hand (resuming so that stepping first lands on the schedule's
    start) are not checked. The scheduler is followed
    through a class's `__init__` (`Trainer(model, optimizer, scheduler)` then
    `self.scheduler.step()`, also in a subclass of the file that does not set
    `self.scheduler` itself) and into a loop over a list or a dict of them
    (`for scheduler in self.schedulers: scheduler.step()`, written out,
    built by a comprehension or filled by `append`), and the optimizer step through the functions of
    the file and of the project's other modules (an epoch-level
    `scheduler.step()` before `train_one_epoch(...)` of `engine.py`), as is
    the scheduler step of another module's function that steps the scheduler
    it is given and no optimizer (`utils.step_schedule(scheduler)`), reported
    at its call. A
    scheduler built in another module and passed in is not known; one that a
    builder of another module returns is (`opt, sched = build_optim(model, cfg)`
    of `return optimizer, scheduler`, each item by its place in the builder's
    tuple whatever the caller names it, by its key in a dict written out, or by
    its field in a named tuple of the builder's module, `collections.namedtuple`
    or `typing.NamedTuple`: `parts.scheduler`, or by the field's place where the
    caller unpacks it, `opt, sched = build(...)` of `return Parts(scheduler=sched,
    optimizer=opt)` with `optimizer` the first field; also built into a variable
    first, `parts = Parts(...)`, then `return parts`),
    unless the builder may build a `ReduceLROnPlateau`; such a call builds the
    scheduler anew, and a scheduler and an optimizer that two different functions
    each build for themselves (a baseline run, then another) are not each other's. A scheduler
    built from one optimizer is not taken as stepped before another optimizer
    that has a constructor of its own in the file (a GAN's generator and
    discriminator, two models); an alias or a wrapper of its optimizer counts
    as its optimizer. A function that steps the optimizer and then the
    scheduler, called twice, is in order: the first call's scheduler step is
    not taken as preceding the second call's optimizer step, nor is a
    scheduler step before a scheduler is built anew (`train()`, which builds
    its own, run twice). A scheduler step
    at the end of one iteration is not connected to the optimizer step of the
    next. A method of a model object that steps the object's schedulers and no
    optimizer (basicsr's `model.update_learning_rate(it)`, its class in the file or
    in another module of the project) is a scheduler step at its call, ordered
    against the optimizer steps reached through the same object in the same
    function (`model.optimize_parameters(data)`); another object's optimizer is
    not taken as the one its schedulers follow. A scheduler step under an `if`
    that a value must pass a bound for (`if current_iter > 1:`, basicsr's guard;
    `if epoch >= start and ...:`) is not checked when that value may change from
    one iteration to the next (the loop's counter, a name the loop assigns, an
    attribute the file assigns, a helper's parameter that a call of the file
    gives such a value or that is not known): the first iterations may skip
    it, so that each step follows the previous iteration's optimizer step; nor
    is a method of an object whose scheduler steps are all so guarded, its
    class in this file or in another module of the project. A bound on a value
    no iteration changes (`if args.warmup > 0:`, a constant of the module, a
    setting the loop hands a helper, also a helper of another module bounding
    its own parameter: `step_schedule(scheduler, cfg.start)`) holds on every
    iteration or on none, and is checked; so does a bound on a parameter that
    calls leave to its default (`step_schedule(scheduler)` of `def
    step_schedule(sched, epoch=1)`, in the file or in another module), unless
    the default fails it (`epoch=0` of `if epoch > 0:`, `None`): that step never runs;
    nor does one given a number that fails it (`step_schedule(scheduler, 0)`, in the
    call or through a parameter of the calling function that each call of the file
    gives such a number). A wrapper that hands the scheduler on (`def warm(sched,
    e=3): step_schedule(sched, e)`, `def warm(sched): step_schedule(sched, 3)`, in
    the helper's module or in another) is judged by what reaches the bound: the
    number it gives, its own default, or the helper's default it leaves the bound
    to, and its callers' numbers for its own parameter; a value it computes is not
    known, and not checked.
    """

    code = "TL404"
    name = "scheduler-before-optimizer"
    severity = "warning"
    message = "`scheduler.step()` runs before `optimizer.step()`: the first value of the schedule is skipped; step the scheduler after the optimizer"
    triggers = ("schedule",)
    bad = (
        "import torch\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)\n"
        "for x, y in loader:\n"
        "    scheduler.step()  # expect: TL404\n"
        "    optimizer.zero_grad()\n"
        "    criterion(model(x), y).backward()\n"
        "    optimizer.step()\n",
        # the pre-1.1 habit: step the scheduler at the start of each epoch
        "from torch.optim import lr_scheduler, AdamW\n"
        "def train_one_epoch(model, loader, optimizer):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        model(x, y).backward()\n"
        "        optimizer.step()\n"
        "def main(model, loader):\n"
        "    optimizer = AdamW(model.parameters())\n"
        "    scheduler = lr_scheduler.CosineAnnealingLR(optimizer, T_max=100)\n"
        "    for epoch in range(100):\n"
        "        scheduler.step()  # expect: TL404\n"
        "        train_one_epoch(model, loader, optimizer)\n",
        # a schedule factory, stepped before the GradScaler's step
        "import torch\n"
        "from transformers import get_linear_schedule_with_warmup\n"
        "opt = torch.optim.AdamW(model.parameters())\n"
        "sched = get_linear_schedule_with_warmup(opt, 100, 10000)\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for step, batch in enumerate(loader):\n"
        "    opt.zero_grad()\n"
        "    scaler.scale(model(**batch).loss).backward()\n"
        "    sched.step()  # expect: TL404\n"
        "    scaler.step(opt)\n"
        "    scaler.update()\n",
        # a Trainer: the scheduler is stepped in the method that runs first
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.opt = torch.optim.Adam(model.parameters())\n"
        "        self.sched = torch.optim.lr_scheduler.OneCycleLR(self.opt, max_lr=0.1, total_steps=1000)\n"
        "    def before_step(self):\n"
        "        self.sched.step()  # expect: TL404\n"
        "    def fit(self, loader):\n"
        "        for batch in loader:\n"
        "            self.opt.zero_grad()\n"
        "            self.model(batch).backward()\n"
        "            self.before_step()\n"
        "            self.opt.step()\n",
        # two optimizers, each with its scheduler: the discriminator's is stepped before its optimizer
        "import torch\n"
        "opt_g = torch.optim.Adam(gen.parameters())\n"
        "opt_d = torch.optim.Adam(disc.parameters())\n"
        "sched_g = torch.optim.lr_scheduler.StepLR(opt_g, 10)\n"
        "sched_d = torch.optim.lr_scheduler.StepLR(optimizer=opt_d, step_size=10)\n"
        "for batch in loader:\n"
        "    gen_loss(batch).backward()\n"
        "    opt_g.step()\n"
        "    sched_d.step()  # expect: TL404\n"
        "    disc_loss(batch).backward()\n"
        "    opt_d.step()\n"
        "    sched_g.step()\n",
        # a helper that steps the scheduler first, called twice
        "import torch\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "sched = torch.optim.lr_scheduler.LinearLR(opt)\n"
        "def update(batch):\n"
        "    sched.step()  # expect: TL404\n"
        "    model(batch).sum().backward()\n"
        "    opt.step()\n"
        "update(a)\n"
        "update(b)\n",
        # the optimizer stepped under another name is still the scheduler's
        "import torch\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "sched = torch.optim.lr_scheduler.StepLR(opt, 10)\n"
        "inner = opt\n"
        "for x, y in loader:\n"
        "    sched.step()  # expect: TL404\n"
        "    criterion(model(x), y).backward()\n"
        "    inner.step()\n",
        # schedulers that come out of a tuple: a builder's, or written out
        "import torch\n"
        "from torch.optim import lr_scheduler\n"
        "def define_schedulers(g_opt, d_opt):\n"
        "    g_sched = lr_scheduler.MultiStepLR(g_opt, [10, 20], 0.5)\n"
        "    d_sched = lr_scheduler.MultiStepLR(d_opt, [10, 20], 0.5)\n"
        "    return g_sched, d_sched\n"
        "def main(model, loader, epochs):\n"
        "    opt = torch.optim.Adam(model.parameters())\n"
        "    sched, _ = define_schedulers(opt, opt)\n"
        "    warm, cool = lr_scheduler.StepLR(opt, 5), lr_scheduler.StepLR(opt, 50)\n"
        "    for epoch in range(epochs):\n"
        "        sched.step()  # expect: TL404\n"
        "        warm.step()  # expect: TL404\n"
        "        for x in loader:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n",
        # a subclass of torch's scheduler class skips its first value as torch's own do
        "import torch\n"
        "from torch.optim.lr_scheduler import _LRScheduler\n"
        "class FindLR(_LRScheduler):\n"
        "    def get_lr(self):\n"
        "        return [base * 1.1 ** self.last_epoch for base in self.base_lrs]\n"
        "optimizer = torch.optim.SGD(net.parameters(), lr=1e-7)\n"
        "finder = FindLR(optimizer)\n"
        "for x, y in loader:\n"
        "    finder.step()  # expect: TL404\n"
        "    optimizer.zero_grad()\n"
        "    criterion(net(x), y).backward()\n"
        "    optimizer.step()\n",
        # the scheduler built in a base class of the file, stepped in the subclass
        "import torch\n"
        "class Base:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "        self.optimizer = torch.optim.Adam(model.parameters())\n"
        "        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, 1000)\n"
        "class Trainer(Base):\n"
        "    def fit(self, batches):\n"
        "        for x in batches:\n"
        "            self.optimizer.zero_grad()\n"
        "            self.model(x).sum().backward()\n"
        "            self.scheduler.step()  # expect: TL404\n"
        "            self.optimizer.step()\n",
        # basicsr's idiom: a loop over the model's schedulers, run before the optimizers step
        "import torch\n"
        "class GANModel:\n"
        "    def __init__(self, net_g, net_d):\n"
        "        self.optimizers = [torch.optim.Adam(net_g.parameters()), torch.optim.Adam(net_d.parameters())]\n"
        "        self.schedulers = [torch.optim.lr_scheduler.StepLR(opt, 1000) for opt in self.optimizers]\n"
        "    def update_learning_rate(self):\n"
        "        for scheduler in self.schedulers:\n"
        "            scheduler.step()  # expect: TL404\n"
        "    def train(self, loader):\n"
        "        for data in loader:\n"
        "            self.update_learning_rate()\n"
        "            for optimizer in self.optimizers:\n"
        "                optimizer.zero_grad()\n"
        "            self.loss(data).backward()\n"
        "            for optimizer in self.optimizers:\n"
        "                optimizer.step()\n",
        # the lists filled one by one (`append`)
        "import torch\n"
        "class Model:\n"
        "    def __init__(self, nets):\n"
        "        self.optimizers = []\n"
        "        self.schedulers = []\n"
        "        for net in nets:\n"
        "            self.optimizers.append(torch.optim.Adam(net.parameters()))\n"
        "        for optimizer in self.optimizers:\n"
        "            self.schedulers.append(torch.optim.lr_scheduler.StepLR(optimizer, 1000))\n"
        "    def train(self, loader):\n"
        "        for data in loader:\n"
        "            for scheduler in self.schedulers:\n"
        "                scheduler.step()  # expect: TL404\n"
        "            for optimizer in self.optimizers:\n"
        "                optimizer.zero_grad()\n"
        "            self.loss(data).backward()\n"
        "            for optimizer in self.optimizers:\n"
        "                optimizer.step()\n",
        # the scheduler class looked up by name in torch's module, from the config
        "import torch\n"
        "from torch.optim import lr_scheduler\n"
        "def train(model, loader, cfg):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    scheduler = getattr(lr_scheduler, cfg.name)(optimizer, **cfg.kwargs)\n"
        "    warmup = getattr(torch.optim.lr_scheduler, 'LinearLR')(optimizer, 0.1)\n"
        "    for x, y in loader:\n"
        "        scheduler.step()  # expect: TL404\n"
        "        warmup.step()  # expect: TL404\n"
        "        optimizer.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # basicsr's restart schedulers: subclasses of `_LRScheduler` of the file, one through another
        "import torch\n"
        "from torch.optim.lr_scheduler import _LRScheduler\n"
        "class MultiStepRestartLR(_LRScheduler):\n"
        "    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):\n"
        "        self.milestones, self.gamma = milestones, gamma\n"
        "        super().__init__(optimizer, last_epoch)\n"
        "    def get_lr(self):\n"
        "        return [lr * self.gamma for lr in self.base_lrs]\n"
        "class CosineRestartLR(MultiStepRestartLR):\n"
        "    def get_lr(self):\n"
        "        return self.base_lrs\n"
        "class SRModel:\n"
        "    def __init__(self, net, opt):\n"
        "        self.net = net\n"
        "        self.optimizer = torch.optim.Adam(net.parameters())\n"
        "        self.scheduler = CosineRestartLR(self.optimizer, **opt['scheduler'])\n"
        "    def train(self, loader):\n"
        "        for lq, gt in loader:\n"
        "            self.scheduler.step()  # expect: TL404\n"
        "            self.optimizer.zero_grad()\n"
        "            (self.net(lq) - gt).abs().mean().backward()\n"
        "            self.optimizer.step()\n",
        # basicsr's model object: its `update_learning_rate()` steps the model's schedulers, called
        # through the instance before its `optimize_parameters()` steps the optimizer
        "import torch\n"
        "class SRModel:\n"
        "    def __init__(self, net):\n"
        "        self.net = net\n"
        "        self.optimizer_g = torch.optim.Adam(net.parameters())\n"
        "        self.schedulers = [torch.optim.lr_scheduler.MultiStepLR(self.optimizer_g, [1000])]\n"
        "    def update_learning_rate(self, current_iter):\n"
        "        for scheduler in self.schedulers:\n"
        "            scheduler.step()\n"
        "    def optimize_parameters(self, data):\n"
        "        self.optimizer_g.zero_grad()\n"
        "        self.net(data).mean().backward()\n"
        "        self.optimizer_g.step()\n"
        "def main(net, loader):\n"
        "    model = SRModel(net)\n"
        "    for current_iter, data in enumerate(loader):\n"
        "        model.update_learning_rate(current_iter)  # expect: TL404\n"
        "        model.optimize_parameters(data)\n",
        # a guard on a value no iteration changes (a setting, a constant): true on every iteration
        # or on none, so the scheduler still steps before the optimizer when it runs
        "import torch\n"
        "WARMUP_ITERS = 500\n"
        "def train(model, loader, args):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, 0.1, total_iters=WARMUP_ITERS)\n"
        "    for x, y in loader:\n"
        "        if args.warmup > 0:\n"
        "            scheduler.step()  # expect: TL404\n"
        "        if WARMUP_ITERS >= 1:\n"
        "            scheduler.step()  # expect: TL404\n"
        "        optimizer.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # the same in a helper the loop hands the scheduler and a setting
        "import torch\n"
        "def adjust_learning_rate(scheduler, warmup_epochs):\n"
        "    if warmup_epochs > 0:\n"
        "        scheduler.step()  # expect: TL404\n"
        "def main(model, loader, cfg):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)\n"
        "    for epoch in range(cfg.epochs):\n"
        "        adjust_learning_rate(scheduler, cfg.warmup_epochs)\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            criterion(model(x), y).backward()\n"
        "            optimizer.step()\n",
        # the bound left to its default, which passes it: the same on every call
        "import torch\n"
        "def step_schedule(sched, epoch=1):\n"
        "    if epoch > 0:\n"
        "        sched.step()  # expect: TL404\n"
        "def main(model, loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)\n"
        "    for x, y in loader:\n"
        "        step_schedule(scheduler)\n"
        "        optimizer.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # the bound handed a wrapper's parameter, left to the wrapper's default, which passes it
        "import torch\n"
        "def step_schedule(sched, epoch=0):\n"
        "    if epoch > 0:\n"
        "        sched.step()  # expect: TL404\n"
        "def warm(sched, e=3):\n"
        "    step_schedule(sched, e)\n"
        "def main(model, loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)\n"
        "    for x, y in loader:\n"
        "        warm(scheduler)\n"
        "        optimizer.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # the scheduler and the optimizer kept in a named tuple or a namespace, read by field
        "import collections\n"
        "import types\n"
        "import torch\n"
        "Optim = collections.namedtuple(\"Optim\", \"optimizer scheduler\")\n"
        "def train(model, loader, criterion):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    optim = Optim(optimizer, torch.optim.lr_scheduler.StepLR(optimizer, 10))\n"
        "    for x, y in loader:\n"
        "        optim.scheduler.step()  # expect: TL404\n"
        "        optim.optimizer.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        optim.optimizer.step()\n"
        "def train_namespace(model, loader, criterion):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    parts = types.SimpleNamespace(optimizer=optimizer, scheduler=torch.optim.lr_scheduler.StepLR(optimizer, 10))\n"
        "    for x, y in loader:\n"
        "        parts.scheduler.step()  # expect: TL404\n"
        "        parts.optimizer.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        parts.optimizer.step()\n",
        # a builder's named tuple unpacked by position: the second item is the scheduler
        "from typing import NamedTuple\n"
        "import torch\n"
        "class OptimParts(NamedTuple):\n"
        "    optimizer: torch.optim.Optimizer\n"
        "    scheduler: torch.optim.lr_scheduler.LRScheduler\n"
        "def build(model, lr):\n"
        "    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)\n"
        "    parts = OptimParts(scheduler=torch.optim.lr_scheduler.StepLR(optimizer, 10), optimizer=optimizer)\n"
        "    return parts\n"
        "def train(model, loader, criterion):\n"
        "    opt, sched = build(model, 0.1)\n"
        "    for x, y in loader:\n"
        "        sched.step()  # expect: TL404\n"
        "        opt.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        opt.step()\n",
        # the step in the arm the first epoch takes, or after a bound on a setting no epoch changes
        "import torch\n"
        "def train(model, loader, criterion, epochs, warmup):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)\n"
        "    for epoch in range(epochs):\n"
        "        None if epoch > 0 else scheduler.step()  # expect: TL404\n"
        "        warmup > 0 and scheduler.step()  # expect: TL404\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            criterion(model(x), y).backward()\n"
        "            optimizer.step()\n",
    )
    good = (
        # per-epoch scheduler step after the batch loop (the chapter's template)
        "import torch\n"
        "optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)\n"
        "scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)\n"
        "for epoch in range(10):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "    scheduler.step()\n",
        # the project's own warm-up scheduler, meant to be stepped first
        "import torch\n"
        "class WarmupLR:\n"
        "    def __init__(self, optimizer, warmup):\n"
        "        self.optimizer, self.warmup, self.n = optimizer, warmup, 0\n"
        "    def step(self):\n"
        "        self.n += 1\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "scheduler = WarmupLR(optimizer, 500)\n"
        "for x, y in loader:\n"
        "    scheduler.step()\n"
        "    optimizer.zero_grad()\n"
        "    criterion(model(x), y).backward()\n"
        "    optimizer.step()\n",
        # per-iteration scheduler after the step; the previous iteration's does not count
        "import torch\n"
        "opt = torch.optim.AdamW(model.parameters())\n"
        "sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, s / 100))\n"
        "for batch in loader:\n"
        "    opt.zero_grad()\n"
        "    model(batch).backward()\n"
        "    opt.step()\n"
        "    sched.step()\n"
        "    # sched.step() must not come before opt.step()\n",
        # a metric-driven scheduler stepped on the last validation loss
        "import torch\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=3)\n"
        "val_loss = float('inf')\n"
        "for epoch in range(50):\n"
        "    plateau.step(val_loss)\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        opt.step()\n"
        "    val_loss = evaluate(model)\n",
        # gradient accumulation: the scheduler steps with the optimizer, after it
        "import torch\n"
        "opt = torch.optim.AdamW(model.parameters())\n"
        "sched = torch.optim.lr_scheduler.LinearLR(opt)\n"
        "for i, batch in enumerate(loader):\n"
        "    (model(batch) / accum).backward()\n"
        "    if (i + 1) % accum == 0:\n"
        "        opt.step()\n"
        "        sched.step()\n"
        "        opt.zero_grad()\n",
        # a helper called twice, each call with its own optimizer and scheduler
        "import torch\n"
        "def check_schedule(model, steps):\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    sched = torch.optim.lr_scheduler.LinearLR(opt)\n"
        "    model(batch).sum().backward()\n"
        "    opt.step()\n"
        "    for _ in range(steps):\n"
        "        sched.step()\n"
        "check_schedule(model, 10)\n"
        "check_schedule(model, 20)\n",
        # a helper that steps both, in order, called twice
        "import torch\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "sched = torch.optim.lr_scheduler.LinearLR(opt)\n"
        "def update():\n"
        "    opt.step()\n"
        "    sched.step()\n"
        "model(a).sum().backward()\n"
        "update()\n"
        "model(b).sum().backward()\n"
        "update()\n",
        # two models, each optimizer followed by its own scheduler
        "import torch\n"
        "from transformers import get_linear_schedule_with_warmup\n"
        "opt_a = torch.optim.AdamW(model_a.parameters())\n"
        "opt_b = torch.optim.AdamW(model_b.parameters())\n"
        "sched_a = get_linear_schedule_with_warmup(optimizer=opt_a, num_warmup_steps=10, num_training_steps=100)\n"
        "sched_b = get_linear_schedule_with_warmup(opt_b, 10, 100)\n"
        "for batch in loader:\n"
        "    model_a(batch).loss.backward()\n"
        "    opt_a.step()\n"
        "    sched_a.step()\n"
        "    model_b(batch).loss.backward()\n"
        "    opt_b.step()\n"
        "    sched_b.step()\n",
        # the counter is set by hand so that stepping first lands on the schedule's start
        "import torch\n"
        "class Trainer:\n"
        "    def fit(self):\n"
        "        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)\n"
        "        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, lr_lambda=self.lf)\n"
        "        self.scheduler.last_epoch = self.start_epoch - 1\n"
        "        for epoch in range(self.start_epoch, self.epochs):\n"
        "            self.scheduler.step()\n"
        "            for batch in self.loader:\n"
        "                self.model(batch).backward()\n"
        "                self.optimizer.step()\n",
        # the optimizer stepped first (a preview of the schedule), then the training loop
        "import torch\n"
        "opt = torch.optim.SGD(net.parameters(), lr=0.5)\n"
        "sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10)\n"
        "opt.step()\n"
        "sched.step()\n"
        "for x in loader:\n"
        "    opt.zero_grad()\n"
        "    net(x).sum().backward()\n"
        "    opt.step()\n",
        # its optimizer stepped earlier in the iteration; the scheduler steps in a loop of
        # its own (once per process) before another optimizer's step
        "import torch\n"
        "def setup(model, ddp_model):\n"
        "    opt = torch.optim.AdamW(model.parameters())\n"
        "    ddp_opt = torch.optim.AdamW(ddp_model.parameters())\n"
        "    return opt, torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.9 ** e), ddp_opt\n"
        "def compare(model, ddp_model, loader, processes):\n"
        "    opt, sched, ddp_opt = setup(model, ddp_model)\n"
        "    for batch in loader:\n"
        "        model(batch).sum().backward()\n"
        "        opt.step()\n"
        "        for _ in range(processes):\n"
        "            sched.step()\n"
        "        ddp_model(batch).sum().backward()\n"
        "        ddp_opt.step()\n",
        # the subclass puts its own scheduler in place of its base class's: what it is, the file does not show
        "import torch\n"
        "from schedules import WarmupThenDecay\n"
        "class Base:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "        self.optimizer = torch.optim.Adam(model.parameters())\n"
        "        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, 1000)\n"
        "class Trainer(Base):\n"
        "    def __init__(self, model):\n"
        "        super().__init__(model)\n"
        "        self.scheduler = WarmupThenDecay(self.optimizer)\n"
        "    def fit(self, batches):\n"
        "        for x in batches:\n"
        "            self.optimizer.zero_grad()\n"
        "            self.model(x).sum().backward()\n"
        "            self.scheduler.step()\n"
        "            self.optimizer.step()\n",
        # `make()` is the function's own lambda, not another function's `make` that builds a scheduler
        "import torch\n"
        "def train(model, loader, tracker):\n"
        "    opt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "    make = lambda: tracker\n"
        "    counter = make()\n"
        "    for batch in loader:\n"
        "        opt.zero_grad()\n"
        "        model(batch).mean().backward()\n"
        "        counter.step()\n"
        "        opt.step()\n"
        "def other(opt):\n"
        "    def make():\n"
        "        return torch.optim.lr_scheduler.StepLR(opt, 10)\n"
        "    return make()\n",
        # a scheduler per optimizer, each stepped after its own optimizer's epoch
        "import torch\n"
        "def train(models, loaders, epochs):\n"
        "    optimizers = [torch.optim.SGD(m.parameters(), lr=0.1) for m in models]\n"
        "    schedulers = [torch.optim.lr_scheduler.StepLR(o, 30) for o in optimizers]\n"
        "    for epoch in range(epochs):\n"
        "        for model, optimizer, scheduler in zip(models, optimizers, schedulers):\n"
        "            for x, y in loaders[model]:\n"
        "                optimizer.zero_grad()\n"
        "                model(x, y).backward()\n"
        "                optimizer.step()\n"
        "            scheduler.step()\n"
        "        for scheduler in schedulers:\n"
        "            print(scheduler.get_last_lr())\n",
        # a warm-up and a decay on one optimizer, both stepped after the epoch's steps
        "import torch\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "schedulers = [torch.optim.lr_scheduler.LinearLR(optimizer, 0.1, total_iters=5),\n"
        "              torch.optim.lr_scheduler.StepLR(optimizer, 30)]\n"
        "for epoch in range(90):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "    for scheduler in schedulers:\n"
        "        scheduler.step()\n",
        # the list takes schedulers the function is given: a warm-up may be meant to step first
        "import torch\n"
        "def train(model, loader, warmups):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    schedulers = []\n"
        "    schedulers.extend(warmups)\n"
        "    schedulers.append(torch.optim.lr_scheduler.StepLR(optimizer, 30))\n"
        "    for x, y in loader:\n"
        "        for scheduler in schedulers:\n"
        "            scheduler.step()\n"
        "        optimizer.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # a class looked up by name in a module of the project's: not known to be torch's kind of scheduler
        "import torch\n"
        "import schedules\n"
        "class WarmupLR:\n"
        "    def __init__(self, optimizer):\n"
        "        self.optimizer = optimizer\n"
        "class LinearWarmupLR(WarmupLR):\n"
        "    def step(self):\n"
        "        pass\n"
        "def train(model, loader, cfg):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    scheduler = getattr(schedules, cfg.name)(optimizer, **cfg.kwargs)\n"
        "    warmup = LinearWarmupLR(optimizer)\n"
        "    for x, y in loader:\n"
        "        scheduler.step()\n"
        "        warmup.step()\n"
        "        optimizer.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # the model object's schedulers stepped through it after its optimizer step; another
        # object's schedulers are not known to follow this object's optimizer
        "import torch\n"
        "class SRModel:\n"
        "    def __init__(self, net):\n"
        "        self.net = net\n"
        "        self.optimizer_g = torch.optim.Adam(net.parameters())\n"
        "        self.schedulers = [torch.optim.lr_scheduler.MultiStepLR(self.optimizer_g, [1000])]\n"
        "    def update_learning_rate(self, current_iter):\n"
        "        for scheduler in self.schedulers:\n"
        "            scheduler.step()\n"
        "    def optimize_parameters(self, data):\n"
        "        self.optimizer_g.zero_grad()\n"
        "        self.net(data).mean().backward()\n"
        "        self.optimizer_g.step()\n"
        "def main(net, teacher, loader):\n"
        "    model = SRModel(net)\n"
        "    frozen = SRModel(teacher)\n"
        "    for current_iter, data in enumerate(loader):\n"
        "        frozen.update_learning_rate(current_iter)\n"
        "        model.optimize_parameters(data)\n"
        "        model.update_learning_rate(current_iter)\n",
        # basicsr's own `update_learning_rate()`: no scheduler step on the first iteration
        # (`current_iter` counts from 1), so each one follows the previous iteration's optimizer step
        "import torch\n"
        "class SRModel:\n"
        "    def __init__(self, net):\n"
        "        self.net = net\n"
        "        self.optimizer_g = torch.optim.Adam(net.parameters())\n"
        "        self.schedulers = [torch.optim.lr_scheduler.MultiStepLR(self.optimizer_g, [1000])]\n"
        "    def update_learning_rate(self, current_iter):\n"
        "        if current_iter > 1:\n"
        "            for scheduler in self.schedulers:\n"
        "                scheduler.step()\n"
        "    def optimize_parameters(self, data):\n"
        "        self.optimizer_g.zero_grad()\n"
        "        self.net(data).mean().backward()\n"
        "        self.optimizer_g.step()\n"
        "    def fit(self, loader):\n"
        "        current_iter = 0\n"
        "        for data in loader:\n"
        "            current_iter += 1\n"
        "            self.update_learning_rate(current_iter)\n"
        "            self.optimize_parameters(data)\n"
        "def main(net, loader):\n"
        "    model = SRModel(net)\n"
        "    for current_iter, data in enumerate(loader, 1):\n"
        "        model.update_learning_rate(current_iter)\n"
        "        model.optimize_parameters(data)\n",
        # a bound on the loop's counter, on a name the loop counts, on what the helper is
        # handed the counter in: the first iterations skip the scheduler step
        "import torch\n"
        "def adjust_learning_rate(scheduler, epoch):\n"
        "    if epoch >= 1:\n"
        "        scheduler.step()\n"
        "def main(model, loader, cfg):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)\n"
        "    done = 0\n"
        "    for epoch in range(cfg.epochs):\n"
        "        adjust_learning_rate(scheduler, epoch)\n"
        "        for it, (x, y) in enumerate(loader):\n"
        "            if it > 0 and cfg.warmup > 0:\n"
        "                scheduler.step()\n"
        "            if done >= 1:\n"
        "                scheduler.step()\n"
        "            optimizer.zero_grad()\n"
        "            criterion(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "            done += 1\n",
        # the bound left to a default that fails it: the scheduler step never runs
        "import torch\n"
        "def step_schedule(sched, epoch=0):\n"
        "    if epoch > 0:\n"
        "        sched.step()\n"
        "def resume_schedule(sched, start=None):\n"
        "    if start is not None and start >= 0:\n"
        "        sched.step()\n"
        "def main(model, loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)\n"
        "    for x, y in loader:\n"
        "        step_schedule(scheduler)\n"
        "        resume_schedule(scheduler)\n"
        "        optimizer.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # the bound given a number that fails it by every call of the file: the step never runs
        "import torch\n"
        "def step_schedule(sched, epoch=1):\n"
        "    if epoch > 0:\n"
        "        sched.step()\n"
        "def main(model, loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)\n"
        "    for x, y in loader:\n"
        "        step_schedule(scheduler, 0)\n"
        "        step_schedule(scheduler, epoch=-1)\n"
        "        optimizer.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # a wrapper's default that fails the bound it is handed to
        "import torch\n"
        "def step_schedule(sched, epoch=1):\n"
        "    if epoch > 0:\n"
        "        sched.step()\n"
        "def hold(sched, e=0):\n"
        "    step_schedule(sched, e)\n"
        "def main(model, loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)\n"
        "    for x, y in loader:\n"
        "        hold(scheduler)\n"
        "        optimizer.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        optimizer.step()\n",
        # a named tuple given them by position, in the order of its fields: the scheduler is first
        "import collections\n"
        "import torch\n"
        "Optim = collections.namedtuple(\"Optim\", \"scheduler optimizer\")\n"
        "def train(model, loader, criterion):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    optim = Optim(torch.optim.lr_scheduler.StepLR(optimizer, 10), optimizer)\n"
        "    for x, y in loader:\n"
        "        optim.optimizer.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        optim.optimizer.step()\n"
        "        optim.scheduler.step()\n",
        # the same named tuple unpacked under names the other way round: its first item,
        # the optimizer, steps first
        "from typing import NamedTuple\n"
        "import torch\n"
        "class OptimParts(NamedTuple):\n"
        "    optimizer: torch.optim.Optimizer\n"
        "    scheduler: torch.optim.lr_scheduler.LRScheduler\n"
        "def build(model, lr):\n"
        "    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)\n"
        "    parts = OptimParts(scheduler=torch.optim.lr_scheduler.StepLR(optimizer, 10), optimizer=optimizer)\n"
        "    return parts\n"
        "def train(model, loader, criterion):\n"
        "    sched, opt = build(model, 0.1)\n"
        "    for x, y in loader:\n"
        "        sched.zero_grad()\n"
        "        criterion(model(x), y).backward()\n"
        "        sched.step()\n"
        "        opt.step()\n",
        # the epoch bound written as a conditional expression or an `and`: the first epoch skips it
        "import torch\n"
        "def train(model, loader, criterion, epochs):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)\n"
        "    for epoch in range(epochs):\n"
        "        scheduler.step() if epoch > 0 else None\n"
        "        epoch > 0 and scheduler.step()\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            criterion(model(x), y).backward()\n"
        "            optimizer.step()\n",
    )

    def finish(self) -> None:
        self._markers: dict[str, cst.CSTNode] = {}
        receivers = self.ctx.receivers
        # where each scheduler is built: a scheduler built anew starts its schedule anew
        self._built = {call: binding for binding, calls in receivers.constructions.items()
                       for call in calls if receivers.kinds.get(binding) == SCHEDULER}
        # also by a builder that returns it in a tuple (`opt, sched = build_optim(model, cfg)`)
        self._built.update({call: binding for binding, calls in receivers.unpacked_builds.items()
                            for call in calls if receivers.kinds.get(binding) == SCHEDULER})
        # a call of another module's function may step the optimizer too
        # that an optimizer stepped stays true from one iteration to the next
        run_each_iteration(self.ctx, self._transfer,
                           events=None if self.ctx.external else self._is_event,
                           kept=lambda facts: facts & frozenset(self._markers.values()))

    def _transfer(self, facts: Facts, node: cst.CSTNode) -> Facts:
        if node in self._built:  # `train()` called twice: the first call's last step skips nothing of the new one
            return frozenset(fact for fact in facts if not self._steps_scheduler(fact, self._built[node]))
        stepped = optimizer_step(self.ctx, node)
        if stepped is not None or self._steps_elsewhere(node):
            markers = frozenset(self._markers.values())
            pending = facts - markers
            others = frozenset(
                call
                for call in pending
                if (stepped is not None and self._another_optimizer(call, stepped)) or self._earlier_call(call, node)
                or self._another_object(call, node, stepped)
            )
            for scheduler_call in pending - others:
                if scheduler_step(self.ctx, scheduler_call) is not None:
                    self.report(scheduler_call)
                else:  # a function of another module, or a method of an object, steps it
                    self.report(scheduler_call, _THROUGH_HELPER.format(self.ctx.code(scheduler_call.func)))  # type: ignore[attr-defined]
            return others | (facts & markers) | self._stepped_markers(node, stepped)
        if self._object_schedule(node) is not None:
            return facts | {node}
        if skipped_at_first(self.ctx, node):
            return facts
        scheduler = self._scheduler_of(node)
        # nothing is skipped when its optimizer stepped first on the way here (`opt.step();
        # sched.step()` before a loop that steps the optimizer again)
        if (scheduler is not None and not self._metric_driven(scheduler)
                and not self._counter_set(scheduler) and not self._stepped_before(scheduler, facts)):
            return facts | {node}
        return facts

    def _scheduler_of(self, node: cst.CSTNode) -> cst.BaseExpression | None:
        """The scheduler `node` steps to its next value: `scheduler.step()` (not
        `step(metric)` / `step(epoch)`, which set the value explicitly), or a call of
        another module's function that steps the scheduler it is given and no
        optimizer (`utils.step_schedule(scheduler)`), also under a bound on another
        value it is given that the loop never changes (`step_schedule(scheduler,
        cfg.start)` of `if start > 0: sched.step()`; not given the loop's counter),
        or leaves to a default that may pass it (`epoch=1`, not `epoch=0`)."""
        scheduler = scheduler_step(self.ctx, node)
        if scheduler is not None:
            return None if node.args else scheduler  # type: ignore[attr-defined]
        summary = self.ctx.summaries.of_external_call(node) if type(node) is cst.Call else None
        if summary is None or not (summary.plain_steps or summary.guarded_steps) or summary.does(STEP):
            return None
        handed = {summary.slot(slot): arg.value for slot, arg in argument_slots(node)}  # type: ignore[arg-type]
        unpacks = any(arg.star for arg in node.args)  # type: ignore[attr-defined]
        stepped = set(summary.plain_steps) | {
            param for param, bound in summary.guarded_steps
            if (self._may_pass(node, handed[bound], summary.tests_of(param, bound)) if bound in handed
                else not unpacks and (param, bound) in summary.default_steps)}
        given = [value for param, value in handed.items()
                 if param in stepped and self.ctx.receivers.is_kind(value, SCHEDULER)]
        return given[0] if len(given) == 1 else None

    def _may_pass(self, call: cst.CSTNode, value: cst.BaseExpression, tests: tuple[tuple[str, str], ...]) -> bool:
        """The value `call` gives a helper's bound passes it on every iteration: it is the
        same on all of them (a setting, not the loop's counter), and not a number (or None)
        that fails it (`step_schedule(scheduler, 0)` of `if epoch > 0:`), written there or
        reaching a parameter of the function around `call` from each of its calls."""
        constants = reaching_constants(self.ctx, call, value)
        if constants is not None and all(fails_for(tests, constant) for constant in constants):
            return False
        return not may_change(self.ctx, call, value)

    def _object_schedule(self, node: cst.CSTNode) -> cst.BaseExpression | None:
        """The object a call of its method steps the schedulers of, the method stepping
        no optimizer (basicsr's `model.update_learning_rate(it)`, its model class
        building its own schedulers): the object the method is called on."""
        if type(node) is not cst.Call or type(node.func) is not cst.Attribute:  # type: ignore[attr-defined]
            return None
        summary = self.ctx.summaries.of_unwalked_call(node)
        if summary is None or not summary.does(SCHEDULER_STEP) or summary.does(STEP):
            return None
        return node.func.value  # type: ignore[attr-defined]

    def _another_object(self, scheduler_call: cst.CSTNode, step: cst.CSTNode,
                        stepped: cst.BaseExpression | None) -> bool:
        """An object's schedulers stepped through its method (`_object_schedule`), then
        an optimizer stepped other than through that object (`model.optimize_parameters(x)`,
        `model.optimizer_g.step()`) in the same function: which optimizer the object's
        schedulers follow is not known."""
        owner = self._object_schedule(scheduler_call)
        if owner is None:
            return False
        through = stepped if stepped is not None else step.func.value if (  # type: ignore[attr-defined]
            type(step) is cst.Call and type(step.func) is cst.Attribute) else None  # type: ignore[attr-defined]
        while type(through) is cst.Attribute and self.ctx.code(through) != self.ctx.code(owner):
            through = through.value  # type: ignore[attr-defined]
        return (through is None or self.ctx.code(through) != self.ctx.code(owner)
                or self.ctx.enclosing_function(step) is not self.ctx.enclosing_function(scheduler_call))

    def _is_event(self, node: cst.CSTNode) -> bool:
        """Every node `_transfer` can react to, for a file with no other module's
        functions to look up."""
        if _is_event(node) or node in self._built:
            return True
        summary = self.ctx.summaries.of_unwalked_call(node)
        return summary is not None and (summary.does(STEP) or summary.does(SCHEDULER_STEP))

    def _steps_scheduler(self, call: cst.CSTNode, binding: Binding) -> bool:
        scheduler = self._scheduler_of(call)
        return scheduler is not None and self.ctx.receivers.binding(scheduler) == binding

    def _marker(self, optimizer: str) -> cst.CSTNode:
        """The fact that `optimizer` (as written; "" for one stepped out of sight)
        stepped earlier on the way."""
        if optimizer not in self._markers:
            self._markers[optimizer] = cst.Name("stepped")
        return self._markers[optimizer]

    def _stepped_markers(self, node: cst.CSTNode, stepped: cst.BaseExpression | None) -> frozenset[cst.CSTNode]:
        """What stepped: the optimizer, or what a function of another module is given
        and steps (`train_batch(net, x, y, loss, trainer)`); "" for one it cannot tell."""
        if stepped is not None:
            return frozenset({self._marker(self.ctx.code(stepped))})
        summary = self.ctx.summaries.of_external_call(node)  # type: ignore[arg-type]
        given = [self.ctx.code(arg.value) for slot, arg in argument_slots(node)  # type: ignore[arg-type]
                 if summary is not None and summary.slot(slot) in summary.steps]
        return frozenset(self._marker(name) for name in given or [""])

    def _stepped_before(self, scheduler: cst.BaseExpression, facts: Facts) -> bool:
        """The scheduler's optimizer (any, when it or what stepped cannot be told)
        stepped earlier on the way."""
        binding = self.ctx.receivers.binding(scheduler)
        built_from = constructor_argument(self.ctx.receivers, binding, "optimizer") if binding is not None else None
        if built_from is None:
            return bool(facts & frozenset(self._markers.values()))
        own = {self._markers.get(self.ctx.code(built_from)), self._markers.get("")}
        return bool(own & facts)

    def _counter_set(self, scheduler: cst.BaseExpression) -> bool:
        """`scheduler.last_epoch = start - 1` somewhere in the file: where the schedule
        stands is the author's to set, so stepping first need not skip a value."""
        receivers = self.ctx.receivers
        binding = receivers.binding(scheduler)
        if binding is None:
            return False
        for assign in self.ctx.nodes_of(cst.Assign):
            for target in assign.targets:
                place = target.target
                if (type(place) is cst.Attribute and place.attr.value == "last_epoch"
                        and receivers.binding(place.value) == binding):
                    return True
        return False

    def _another_optimizer(self, scheduler_call: cst.CSTNode, stepped: cst.BaseExpression) -> bool:
        """The scheduler `scheduler_call` steps was built from an optimizer
        other than `stepped`: both variables built by optimizer constructors
        of their own (two models, a GAN's generator and discriminator). An
        alias or a wrapper of the scheduler's optimizer is not known to be
        another one."""
        receivers = self.ctx.receivers
        stepped_binding = receivers.binding(stepped)
        scheduler = self._scheduler_of(scheduler_call)
        binding = receivers.binding(scheduler) if scheduler is not None else None
        if stepped_binding is not None and binding is not None and self._built_apart(binding, stepped_binding):
            return True
        if stepped_binding is None or not self._built_optimizer(stepped_binding):
            return False
        built_from = constructor_argument(receivers, binding, "optimizer") if binding is not None else None
        owner = receivers.binding(built_from) if built_from is not None else None
        return owner is not None and owner != stepped_binding and self._built_optimizer(owner)

    def _built_apart(self, scheduler: Binding, optimizer: Binding) -> bool:
        """Both are variables of two different functions that build their own (by a
        constructor, or a builder's tuple: `opt, sched = build_optim(model, cfg)`): a
        scheduler of one function's run is not the optimizer's of another's."""
        receivers = self.ctx.receivers
        owners = (scheduler.owner, optimizer.owner)
        if any(type(owner) is not cst.FunctionDef for owner in owners) or owners[0] is owners[1]:
            return False
        return all(receivers.constructions.get(binding) or receivers.unpacked_builds.get(binding)
                   for binding in (scheduler, optimizer))

    def _earlier_call(self, scheduler_call: cst.CSTNode, step: cst.CSTNode) -> bool:
        """The scheduler step can reach the optimizer step only from an
        earlier call of the function that holds both (a helper called twice):
        the optimizer step comes first in that function, with no loop of the
        function around both, so each call steps the optimizer before the
        scheduler."""
        ctx = self.ctx
        function = ctx.enclosing_function(step)
        if function is None or ctx.enclosing_function(scheduler_call) is not function:
            return False
        if ctx.order_index(scheduler_call) < ctx.order_index(step):
            return False
        return not loops_within(ctx, step, function) & loops_within(ctx, scheduler_call, function)

    def _built_optimizer(self, binding: Binding) -> bool:
        receivers = self.ctx.receivers
        return receivers.kinds.get(binding) == OPTIMIZER and bool(receivers.constructions.get(binding))

    def _steps_elsewhere(self, node: cst.CSTNode) -> bool:
        """A call of another module's function that steps the optimizer
        (`train_one_epoch(...)` of `engine.py`), or of a method of an object of a
        class of the file (`model.optimize_parameters(data)`)."""
        summary = self.ctx.summaries.of_unwalked_call(node)
        return summary is not None and summary.does(STEP)

    def _metric_driven(self, scheduler: cst.BaseExpression) -> bool:
        receivers = self.ctx.receivers
        binding = receivers.binding(scheduler)
        built = receivers.constructions.get(binding, []) if binding is not None else []
        return any((self.ctx.call_name(call) or "").endswith(_METRIC_DRIVEN) for call in built)


_THROUGH_HELPER = ("`{}()` steps the scheduler before `optimizer.step()`: the first value of the schedule is "
                   "skipped; step the scheduler after the optimizer")


def _is_event(node: cst.CSTNode) -> bool:
    """Every node `SchedulerBeforeOptimizer._transfer` can react to."""
    return method_call(node, "step") is not None
