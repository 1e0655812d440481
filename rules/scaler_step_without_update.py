import libcst as cst

from trainlint.analysis.accumulators import reads_only
from trainlint.analysis.precision import handed_arguments, hands_over_scaler, hook_body, scaler_owners, scaler_switched_off
from trainlint.analysis.guards import in_try
from trainlint.analysis.dataflow import target_names
from trainlint.analysis.receivers import GRAD_SCALER, Binding, ObjectItems, constructor_kind, items_may_match
from trainlint.analysis.training import ancestors_within, loops_within, method_call, statement_of
from trainlint.analysis.scopes import (
    alternatives, argument_slots, bound_arguments, dotted_name, named_scaler, receiver_method,
)
from trainlint.analysis.walk import iter_nodes
from trainlint.context import FileContext
from trainlint.rule import Example, Fix, Rule
from trainlint.summaries import LOOP, SCALER_STEP, SCALER_UPDATE, STEP_HOOK_REGISTRATIONS


class ScalerStepWithoutUpdate(Rule):
    """
    ## What it does
    Flags `scaler.step(optimizer)` on a `GradScaler` inside a loop whose body
    never calls `scaler.update()` (directly, or through a function of the same
    file that the loop calls).

    ## Why is this bad?
    `update()` is what adapts the loss scale: it lowers the scale after an
    overflow and raises it after a run of good steps. It also closes the
    scaler's bookkeeping for the iteration, so without it the second
    `scaler.step(optimizer)` raises `RuntimeError: step() has already been
    called since the last update()`. An `update()` once per epoch is no
    better: after the first overflow every later step of the epoch is skipped.

    ## Fix safety
    Safe: inserts `scaler.update()` on the line right after the
    `scaler.step(optimizer)` statement, under the same condition (the step of
    an accumulation loop stays on its N-th micro-step). When the file calls
    `update()` on a scaler somewhere else (after the loop, per epoch, under
    another name), adding another would make that one fail, so such findings
    carry no fix. Nor does a scaler this file does not build from torch's
    `GradScaler` itself (a parameter, whose caller in any module may update it;
    a class of the project, whose `step()` may update), a step in a `try` or
    a `with` that swallows errors (the error of a second step may be relied
    on) or in an `assert`, or a loop that steps the scaler more than once
    (several optimizers, a loop over them): `update()` belongs once after all
    of their steps. Nor does a scaler handed, outside the loops, to a function
    this file does not define (`subscribe_update(events, scaler)`), which may
    subscribe a callback that updates it, unless the call only reads it
    (`print("using", scaler)`, a logger's method, a function of the project
    whose every use of it reads it: `print(scaler.get_scale())`). Nor does a scaler updated in an
    optimizer step hook (below): an `update()` added after the step would run
    a second time on every step that is not skipped, and raise (`No inf checks
    were recorded prior to update`); move the update out of the hook instead.

    ## Limitations
    Only scalers the linter can tell are `GradScaler`s are checked (built from
    `torch.amp.GradScaler` or its aliases, or used as `s.scale(loss).backward()`).
    A step in a function or method of this file that a loop calls (directly or
    through up to three calls of this file) is flagged only when nothing run by
    the calling function's outermost loop may update a scaler: no `update()` in
    it or in a function of this file it reaches, no method of `self` defined
    elsewhere (a base class's hook), no call handed a scaler or its owner; such
    a finding carries no fix. A call of another module's function that steps a
    scaler and cannot update one (`scaled_step(model, opt, scaler, batch)`,
    leaving the update to its callers; also `optimizer_step(scaler, opt)`
    running `scaler.step(opt)` on a parameter or attribute named for a
    scaler, which its module cannot otherwise tell is a GradScaler) is flagged at the call, without a fix,
    where its loop here may update none, or, outside any loop of its function,
    where a loop of this file that calls that function may update none (as for
    a step of this file's own); a function that hands the scaler to
    code out of reach (`hook.after_step(scaler)`) may update it, one that hands it
    to another module's function of the project does what that one does (unless
    it keeps the scaler: a constructor, an attribute), and one that
    runs a loop of its own is judged in its module. An update is assumed wherever it may happen: in a function or
    method of this file that calls `update()` on a scaler (`hook.after_step()`
    running `self.scaler.update()`), or in code this file cannot see that is
    handed the scaler or the object holding it (`end_step(scaler, opt)` of
    another module, `callbacks.on_step(self)`). A scaler handed out anywhere
    in the file (`hook = StepHook(scaler)`), whose `update` is stored
    (`end_of_step = scaler.update`) or read in a lambda or a nested function
    (a callback of an event bus), may be updated out of sight: not flagged.
    A scaler whose `update()` a lambda registered as a step post-hook (or
    pre-hook) of the optimizer the loop steps calls
    (`optimizer.register_step_post_hook(lambda *_: scaler.update())`), in this
    file or in a function of the project, in any module, that is handed the
    scaler and registers it on every call (under no branch, loop or handler:
    `install_update_hook(optimizer, scaler)`), is flagged with its own
    message (a registration after the loop, or whose handle is `.remove()`d,
    gets the plain one): when a step has inf/NaN gradients, `scaler.step()` skips
    `optimizer.step()`, so the hook does not run, the update is missed, and
    the next `scaler.step()` raises (with fp16, an overflow in the first steps
    is normal). A helper's hook defined and never registered, registered under
    a condition, on another optimizer, or in any other way
    (`events.subscribe(...)`) updates nothing the linter can see: flagged
    with the plain message; so does a hook of this file (a lambda, a function
    by name) registered on another optimizer that the file reads nowhere but
    to register its hooks, to test it (`if swa_opt is not None:`) or to read an
    attribute of it (`swa_opt.param_groups`): nothing can step it. Any other
    read may step it, here or out of sight (`swa_opt.step()`, an argument, an
    item of a list or dict, an attribute of another object, a loop over its
    container, an item picked by a parameter, `opts[name]` of `opts["d"]`): not flagged. Which optimizer a hook is registered on is read from the
    variables and literal items written (`opt = self.optimizer`, `o =
    opts["g"]`), not from the spelling; where that cannot be told (`opts[i]`
    of a loop, a loop target, a variable assigned twice, an attribute of a
    class), the hook may update: not flagged, unless the hook and the step
    name one variable (`opt = a`, the hook, `opt = b`, the step): whichever
    optimizer it holds, the update is missed, with the step or always.
    A loop over optimizers (`for opt in optimizers: scaler.step(opt)`)
    is not the training loop: the enclosing loop is checked instead.
    """

    code = "TL104"
    name = "scaler-step-without-update"
    severity = "error"
    message = "`scaler.step()` in a loop that never calls `scaler.update()`: the loss scale never adapts and the next step raises; call `scaler.update()` after the step"
    fix_safety = "safe"
    triggers = ("GradScaler", ".scale(")
    bad = (
        Example(
            "import torch\n"
            "scaler = torch.amp.GradScaler('cuda')\n"
            "for x, y in loader:\n"
            "    optimizer.zero_grad()\n"
            "    with torch.autocast('cuda'):\n"
            "        loss = criterion(model(x), y)\n"
            "    scaler.scale(loss).backward()\n"
            "    scaler.step(optimizer)  # expect: TL104\n",
            fixed="import torch\n"
            "scaler = torch.amp.GradScaler('cuda')\n"
            "for x, y in loader:\n"
            "    optimizer.zero_grad()\n"
            "    with torch.autocast('cuda'):\n"
            "        loss = criterion(model(x), y)\n"
            "    scaler.scale(loss).backward()\n"
            "    scaler.step(optimizer)  # expect: TL104\n"
            "    scaler.update()\n",
        ),
        Example(
            "from torch.cuda.amp import GradScaler as GS\n"
            "def train(model, loader, opt, accum):\n"
            "    scaler = GS()\n"
            "    for i, batch in enumerate(loader):\n"
            "        scaler.scale(model(batch) / accum).backward()\n"
            "        if (i + 1) % accum == 0:\n"
            "            scaler.step(opt)  # expect: TL104\n"
            "            opt.zero_grad()\n",
            fixed="from torch.cuda.amp import GradScaler as GS\n"
            "def train(model, loader, opt, accum):\n"
            "    scaler = GS()\n"
            "    for i, batch in enumerate(loader):\n"
            "        scaler.scale(model(batch) / accum).backward()\n"
            "        if (i + 1) % accum == 0:\n"
            "            scaler.step(opt)  # expect: TL104\n"
            "            scaler.update()\n"
            "            opt.zero_grad()\n",
        ),
        Example(
            "from torch import amp\n"
            "class Trainer:\n"
            "    def __init__(self, model, optimizer):\n"
            "        self.scaler = amp.GradScaler('cuda')\n"
            "        self.optimizer = optimizer\n"
            "    def fit(self, loader):\n"
            "        while self.running:\n"
            "            loss = self.model(next(loader))\n"
            "            self.scaler.scale(loss).backward()\n"
            "            self.scaler.step(self.optimizer)  # expect: TL104\n"
            "            # self.scaler.update()\n",
            fixed="from torch import amp\n"
            "class Trainer:\n"
            "    def __init__(self, model, optimizer):\n"
            "        self.scaler = amp.GradScaler('cuda')\n"
            "        self.optimizer = optimizer\n"
            "    def fit(self, loader):\n"
            "        while self.running:\n"
            "            loss = self.model(next(loader))\n"
            "            self.scaler.scale(loss).backward()\n"
            "            self.scaler.step(self.optimizer)  # expect: TL104\n"
            "            self.scaler.update()\n"
            "            # self.scaler.update()\n",
        ),
        # an update once per epoch: flagged, but adding one would break the
        # epoch-level call, so no fix
        "import torch as th\n"
        "scaler = th.amp.GradScaler('cuda')\n"
        "for epoch in range(10):\n"
        "    for x, y in loader:\n"
        "        scaler.scale(criterion(model(x), y)).backward()\n"
        "        scaler.step(optimizer)  # expect: TL104\n"
        "        optimizer.zero_grad()\n"
        "    scaler.update()\n",
        # the scale read for logging is not the scaler handed over
        Example(
            "import torch\n"
            "scaler = torch.amp.GradScaler('cuda')\n"
            "for batch in loader:\n"
            "    scaler.scale(model(batch)).backward()\n"
            "    scaler.step(optimizer)  # expect: TL104\n"
            "    log_scale(scaler.get_scale())\n",
            fixed="import torch\n"
            "scaler = torch.amp.GradScaler('cuda')\n"
            "for batch in loader:\n"
            "    scaler.scale(model(batch)).backward()\n"
            "    scaler.step(optimizer)  # expect: TL104\n"
            "    scaler.update()\n"
            "    log_scale(scaler.get_scale())\n",
        ),
        # a parameter known to be a scaler from how it is used (no fix: a caller, here
        # or in another module, may update it once per epoch, and would then raise)
        "def train_one_epoch(model, loader, optimizer, scaler):\n"
        "    for x, y in loader:\n"
        "        scaler.scale(model(x, y)).backward()\n"
        "        scaler.step(optimizer); optimizer.zero_grad()  # expect: TL104\n",
        # reading the scale in a function, or handing the scaler to a call in another
        # loop, updates nothing in this one
        Example(
            "import torch\n"
            "from helpers import end_step\n"
            "scaler = torch.amp.GradScaler('cuda')\n"
            "def log_scale():\n"
            "    print(scaler.get_scale())\n"
            "for x, y in warmup:\n"
            "    scaler.scale(criterion(model(x), y)).backward()\n"
            "    scaler.step(optimizer)\n"
            "    end_step(scaler, optimizer)\n"
            "for x, y in loader:\n"
            "    scaler.scale(criterion(model(x), y)).backward()\n"
            "    scaler.step(optimizer)  # expect: TL104\n"
            "    log_scale()\n",
            fixed="import torch\n"
            "from helpers import end_step\n"
            "scaler = torch.amp.GradScaler('cuda')\n"
            "def log_scale():\n"
            "    print(scaler.get_scale())\n"
            "for x, y in warmup:\n"
            "    scaler.scale(criterion(model(x), y)).backward()\n"
            "    scaler.step(optimizer)\n"
            "    end_step(scaler, optimizer)\n"
            "for x, y in loader:\n"
            "    scaler.scale(criterion(model(x), y)).backward()\n"
            "    scaler.step(optimizer)  # expect: TL104\n"
            "    scaler.update()\n"
            "    log_scale()\n",
        ),
        # no fix: the step may not run, and an update after no step raises
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for i, (x, y) in enumerate(loader):\n"
        "    scaler.scale(criterion(model(x), y)).backward()\n"
        "    _ = scaler.step(optimizer) if (i + 1) % accum == 0 else None  # expect: TL104\n",
        # the step's value is returned: an update after it would never run
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "def first_step(loader):\n"
        "    for x in loader:\n"
        "        opt.zero_grad()\n"
        "        scaler.scale(model(x).sum()).backward()\n"
        "        return scaler.step(opt)  # expect: TL104\n",
        # a parameter named like the helper that updates hands nothing on
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "def update_scale():\n"
        "    scaler.update()\n"
        "def train(loader, update_scale=False):\n"
        "    for x in loader:\n"
        "        opt.zero_grad()\n"
        "        scaler.scale(model(x).sum()).backward()\n"
        "        scaler.step(opt)  # expect: TL104\n",
        # the scaler only tested for None (fp16 runs build one, others not)
        Example(
            "import torch\n"
            "scaler = torch.amp.GradScaler('cuda') if use_fp16 else None\n"
            "for x in loader:\n"
            "    loss = model(x).mean()\n"
            "    if scaler is not None:\n"
            "        scaler.scale(loss).backward()\n"
            "        scaler.step(optimizer)  # expect: TL104\n"
            "    else:\n"
            "        loss.backward()\n"
            "        optimizer.step()\n",
            fixed="import torch\n"
            "scaler = torch.amp.GradScaler('cuda') if use_fp16 else None\n"
            "for x in loader:\n"
            "    loss = model(x).mean()\n"
            "    if scaler is not None:\n"
            "        scaler.scale(loss).backward()\n"
            "        scaler.step(optimizer)  # expect: TL104\n"
            "        scaler.update()\n"
            "    else:\n"
            "        loss.backward()\n"
            "        optimizer.step()\n",
        ),
        # the step in a method the training loop calls, and no update anywhere (no fix:
        # the method's callers elsewhere may update)
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model = model\n"
        "        self.optimizer = optimizer\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "    def train(self, loader):\n"
        "        for batch in loader:\n"
        "            self.train_one_iter(batch)\n"
        "    def train_one_iter(self, batch):\n"
        "        self.optimizer.zero_grad()\n"
        "        self.scaler.scale(self.model(batch).mean()).backward()\n"
        "        self.scaler.step(self.optimizer)  # expect: TL104\n",
        # the step in a function given the scaler, called in the loop
        "import torch\n"
        "def train_step(model, optimizer, scaler, batch):\n"
        "    optimizer.zero_grad()\n"
        "    scaler.scale(model(batch).mean()).backward()\n"
        "    scaler.step(optimizer)  # expect: TL104\n"
        "def train(model, optimizer, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    for batch in loader:\n"
        "        train_step(model, optimizer, scaler, batch)\n",
        # the scaler's step in a method called on its class (`Trainer._step(self, loss)`)
        "import torch\n"
        "\n"
        "\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model = model\n"
        "        self.optimizer = optimizer\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "\n"
        "    def _step(self, loss):\n"
        "        self.scaler.scale(loss).backward()\n"
        "        self.scaler.step(self.optimizer)  # expect: TL104\n"
        "\n"
        "    def fit(self, loader):\n"
        "        for x in loader:\n"
        "            self.optimizer.zero_grad()\n"
        "            with torch.autocast('cuda'):\n"
        "                loss = self.model(x).sum()\n"
        "            Trainer._step(self, loss)\n",
        # a helper hands the scaler to a hook that only reads it, and updates another object
        Example(
            "import torch\n"
            "def log_scale_hook(optimizer, scaler, stats):\n"
            "    optimizer.register_step_post_hook(lambda *_: stats.update(scale=scaler.get_scale()))\n"
            "def train(model, optimizer, loader, stats):\n"
            "    scaler = torch.amp.GradScaler('cuda')\n"
            "    log_scale_hook(optimizer, scaler, stats)\n"
            "    for x in loader:\n"
            "        scaler.scale(model(x).mean()).backward()\n"
            "        scaler.step(optimizer)  # expect: TL104\n",
            fixed="import torch\n"
            "def log_scale_hook(optimizer, scaler, stats):\n"
            "    optimizer.register_step_post_hook(lambda *_: stats.update(scale=scaler.get_scale()))\n"
            "def train(model, optimizer, loader, stats):\n"
            "    scaler = torch.amp.GradScaler('cuda')\n"
            "    log_scale_hook(optimizer, scaler, stats)\n"
            "    for x in loader:\n"
            "        scaler.scale(model(x).mean()).backward()\n"
            "        scaler.step(optimizer)  # expect: TL104\n"
            "        scaler.update()\n",
        ),
        # a helper defines a hook that would update the scaler, but never registers it
        "import torch\n"
        "def make_update_hook(optimizer, scaler):\n"
        "    def hook(*_):\n"
        "        scaler.update()\n"
        "def train(model, optimizer, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    make_update_hook(optimizer, scaler)\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(optimizer)  # expect: TL104\n",
        # the helper registers its hook only when asked, and this call does not ask
        "import torch\n"
        "def install_update_hook(optimizer, scaler, enabled):\n"
        "    if enabled:\n"
        "        optimizer.register_step_post_hook(lambda *_: scaler.update())\n"
        "def train(model, optimizer, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    install_update_hook(optimizer, scaler, False)\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(optimizer)  # expect: TL104\n",
        # the hook goes on another optimizer than the one the loop steps: it never runs
        "import torch\n"
        "def install_update_hook(optimizer, scaler):\n"
        "    optimizer.register_step_post_hook(lambda *_: scaler.update())\n"
        "def train(model, optimizer, swa_optimizer, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    install_update_hook(swa_optimizer, scaler)\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(optimizer)  # expect: TL104\n",
        # no fix: a helper of another module is handed the scaler, and may subscribe a
        # callback that updates it (`events.subscribe("step_end", lambda *_: scaler.update())`)
        "import torch\n"
        "from callbacks import subscribe_update\n"
        "def train(model, optimizer, loader, events):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    subscribe_update(events, scaler)\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(optimizer)  # expect: TL104\n",
        # the hook updates a scaler it is given when it runs, not the one handed to the helper
        "import torch\n"
        "def install_update_hook(optimizer, scaler):\n"
        "    optimizer.register_step_post_hook(lambda scaler, *_: scaler.update())\n"
        "def train(model, optimizer, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    install_update_hook(optimizer, scaler)\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(optimizer)  # expect: TL104\n",
        # a helper registers an optimizer step hook that updates the scaler: a step skipped
        # for inf/NaN gradients does not run it, so the next step raises; no fix (an update
        # added after the step would run twice on the other steps, and raise)
        "import torch\n"
        "def install_update_hook(optimizer, scaler):\n"
        "    optimizer.register_step_post_hook(lambda *_: scaler.update())\n"
        "def train(model, optimizer, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    install_update_hook(optimizer, scaler)\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(optimizer)  # expect: TL104\n",
        # the same, the arguments given by keyword, from a constructor
        "import torch\n"
        "def install_update_hook(optimizer, scaler):\n"
        "    optimizer.register_step_post_hook(lambda *_: scaler.update())\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model, self.optimizer = model, optimizer\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "        install_update_hook(scaler=self.scaler, optimizer=self.optimizer)\n"
        "    def fit(self, loader):\n"
        "        for x in loader:\n"
        "            self.scaler.scale(self.model(x).mean()).backward()\n"
        "            self.scaler.step(self.optimizer)  # expect: TL104\n",
        # the same hook registered here: no fix either
        "import torch\n"
        "def train(model, loader, optimizer):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    optimizer.register_step_post_hook(lambda *_: scaler.update())\n"
        "    for x, y in loader:\n"
        "        scaler.scale(criterion(model(x), y)).backward()\n"
        "        scaler.step(optimizer)  # expect: TL104\n",
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "opt.register_step_post_hook(lambda opt, args, kwargs: scaler.update())\n"
        "for x in loader:\n"
        "    scaler.scale(model(x).sum()).backward()\n"
        "    scaler.step(opt)  # expect: TL104\n",
        # printing the scaler only reads it: the fix is kept
        Example(
            "import torch\n"
            "def train(model, opt, loader):\n"
            "    scaler = torch.amp.GradScaler('cuda')\n"
            "    print('using', scaler)\n"
            "    for x in loader:\n"
            "        scaler.scale(model(x).mean()).backward()\n"
            "        scaler.step(opt)  # expect: TL104\n",
            fixed="import torch\n"
            "def train(model, opt, loader):\n"
            "    scaler = torch.amp.GradScaler('cuda')\n"
            "    print('using', scaler)\n"
            "    for x in loader:\n"
            "        scaler.scale(model(x).mean()).backward()\n"
            "        scaler.step(opt)  # expect: TL104\n"
            "        scaler.update()\n",
        ),
        # the hook's handle is removed before the loop: nothing updates the scaler (no fix:
        # which hooks are there when the loop runs is not followed)
        "import torch\n"
        "def train(model, opt, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    handle = opt.register_step_post_hook(lambda *_: scaler.update())\n"
        "    handle.remove()\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(opt)  # expect: TL104\n",
        # a step pre-hook is skipped with the step too: the next step raises; no fix
        "import torch\n"
        "def train(model, opt, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    opt.register_step_pre_hook(lambda *_: scaler.update())\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(opt)  # expect: TL104\n",
        # the step hook is a function registered by name: skipped with the step; no fix
        "import torch\n"
        "def train(model, opt, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    def update_scale(*_):\n"
        "        scaler.update()\n"
        "    opt.register_step_post_hook(update_scale)\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(opt)  # expect: TL104\n",
        # the same, registered by a helper of this file: as from another module; no fix
        "import torch\n"
        "def install_update_hook(opt, scaler):\n"
        "    def update_scale(*_):\n"
        "        scaler.update()\n"
        "    opt.register_step_post_hook(update_scale)\n"
        "def train(model, opt, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    install_update_hook(opt, scaler)\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(opt)  # expect: TL104\n",
        # the hook goes on the optimizer stepped, under another name: skipped with the step
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "        self.optimizer = torch.optim.AdamW(model.parameters())\n"
        "    def fit(self, loader):\n"
        "        opt = self.optimizer\n"
        "        opt.register_step_post_hook(lambda *_: self.scaler.update())\n"
        "        for x in loader:\n"
        "            self.scaler.scale(self.model(x).mean()).backward()\n"
        "            self.scaler.step(self.optimizer)  # expect: TL104\n",
        "import torch\n"
        "def train(model, opts, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    generator_opt = opts['g']\n"
        "    generator_opt.register_step_post_hook(lambda *_: scaler.update())\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(opts['g'])  # expect: TL104\n",
        # the hook goes on another optimizer, which nothing steps: it never runs
        "import torch\n"
        "def train(model, opts, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    opts['d'].register_step_post_hook(lambda *_: scaler.update())\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(opts['g'])  # expect: TL104\n",
        "import torch\n"
        "def train(model, opt, swa_opt, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    def update_scale(*_):\n"
        "        scaler.update()\n"
        "    swa_opt.register_step_post_hook(update_scale)\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(opt)  # expect: TL104\n",
        # the variable the hook is registered on is then assigned the optimizer stepped:
        # whichever it holds, the update is missed
        "import torch\n"
        "def train(model, loader, warmup_opt, main_opt):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    opt = warmup_opt\n"
        "    opt.register_step_post_hook(lambda *_: scaler.update())\n"
        "    opt = main_opt\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(opt)  # expect: TL104\n",
        # the other optimizer is only tested and its learning rate read: nothing steps it
        "import torch\n"
        "def train(model, opt, swa_opt, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    if swa_opt is not None:\n"
        "        swa_opt.register_step_post_hook(lambda *_: scaler.update())\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(opt)  # expect: TL104\n"
        "        print(swa_opt.param_groups[0]['lr'])\n",
    )
    good = (
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for x, y in loader:\n"
        "    scaler.scale(criterion(model(x), y)).backward()\n"
        "    scaler.step(optimizer)\n"
        "    scaler.update()\n"
        "    optimizer.zero_grad()\n",
        # one update after stepping every optimizer of a GAN
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for batch in loader:\n"
        "    scaler.scale(loss_g + loss_d).backward()\n"
        "    for opt in (opt_g, opt_d):\n"
        "        scaler.step(opt)\n"
        "    scaler.update()\n",
        # the update happens in a method the loop calls
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self):\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "    def _after_step(self):\n"
        "        self.scaler.update()\n"
        "        self.optimizer.zero_grad()\n"
        "    def fit(self, loader):\n"
        "        for batch in loader:\n"
        "            self.scaler.scale(self.model(batch)).backward()\n"
        "            self.scaler.step(self.optimizer)\n"
        "            self._after_step()\n",
        # a hook object given the scaler updates it in a method of this file
        "import torch\n"
        "class Hook:\n"
        "    def __init__(self, scaler):\n"
        "        self.scaler = scaler\n"
        "    def after_step(self):\n"
        "        self.scaler.update()\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "hook = Hook(scaler)\n"
        "for batch in loader:\n"
        "    scaler.scale(model(batch)).backward()\n"
        "    scaler.step(optimizer)\n"
        "    hook.after_step()\n",
        # the scaler handed to code this file cannot see, which may update it
        "import torch\n"
        "from helpers import end_step\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for batch in loader:\n"
        "    scaler.scale(model(batch)).backward()\n"
        "    scaler.step(optimizer)\n"
        "    end_step(scaler, optimizer)\n",
        # a project's own scaler class is not torch's GradScaler
        "from mylib import LossScaler\n"
        "scaler = LossScaler()\n"
        "for batch in loader:\n"
        "    scaler.step(optimizer)\n",
        # a step helper outside any loop; the loop that calls it updates
        "import torch\n"
        "def backward_and_step(scaler, loss, optimizer):\n"
        "    scaler.scale(loss).backward()\n"
        "    scaler.step(optimizer)\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for x, y in loader:\n"
        "    backward_and_step(scaler, criterion(model(x), y), optimizer)\n"
        "    scaler.update()\n",
        # scheduler and optimizer steps are not scaler steps
        "import torch\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 10)\n"
        "for x, y in loader:\n"
        "    criterion(model(x), y).backward()\n"
        "    optimizer.step()\n"
        "    scheduler.step()\n",
        # a scaler that is switched off only forwards to optimizer.step()
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda', enabled=False)\n"
        "for x, y in loader:\n"
        "    scaler.scale(criterion(model(x), y)).backward()\n"
        "    scaler.step(optimizer)\n",
        # the update is out of this loop's sight: a hook object of another module
        # given the scaler, a stored `scaler.update`, an optimizer's step hook
        "import torch\n"
        "from hooks import StepHook\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "hook = StepHook(scaler)\n"
        "for x, y in loader:\n"
        "    scaler.scale(criterion(model(x), y)).backward()\n"
        "    scaler.step(optimizer)\n"
        "    hook.after_step()\n",
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "end_of_step = scaler.update\n"
        "for x, y in loader:\n"
        "    scaler.scale(criterion(model(x), y)).backward()\n"
        "    scaler.step(optimizer)\n"
        "    end_of_step()\n",
        # a callback of an event bus the linter cannot see fire (not an optimizer step hook)
        "import torch\n"
        "def train(model, loader, optimizer, events):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    events.subscribe('step_end', lambda *_: scaler.update())\n"
        "    for x, y in loader:\n"
        "        scaler.scale(criterion(model(x), y)).backward()\n"
        "        scaler.step(optimizer)\n",
        # a scaler of the file's own class, whose `step()` updates
        "import torch\n"
        "class AutoScaler(torch.amp.GradScaler):\n"
        "    def step(self, optimizer, *args, **kwargs):\n"
        "        out = super().step(optimizer, *args, **kwargs)\n"
        "        self.update()\n"
        "        return out\n"
        "scaler = AutoScaler('cuda')\n"
        "for x in loader:\n"
        "    opt.zero_grad()\n"
        "    scaler.scale(model(x).sum()).backward()\n"
        "    scaler.step(opt)\n",
        # the same scaler under two names
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self):\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "    def fit(self, batches):\n"
        "        scaler = self.scaler\n"
        "        for x in batches:\n"
        "            self.opt.zero_grad()\n"
        "            scaler.scale(self.model(x).sum()).backward()\n"
        "            scaler.step(self.opt)\n"
        "            self.scaler.update()\n",
        # the method that updates is called from a list of callbacks
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self):\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "        self.on_step_end = [self.update_scale]\n"
        "    def update_scale(self):\n"
        "        self.scaler.update()\n"
        "    def fit(self, batches):\n"
        "        for x in batches:\n"
        "            self.opt.zero_grad()\n"
        "            self.scaler.scale(self.model(x).sum()).backward()\n"
        "            self.scaler.step(self.opt)\n"
        "            for callback in self.on_step_end:\n"
        "                callback()\n",
        # the step in a function the loop calls, the update after the call
        "import torch\n"
        "def train_step(model, optimizer, scaler, batch):\n"
        "    optimizer.zero_grad()\n"
        "    scaler.scale(model(batch).mean()).backward()\n"
        "    scaler.step(optimizer)\n"
        "def train(model, optimizer, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    for batch in loader:\n"
        "        train_step(model, optimizer, scaler, batch)\n"
        "        scaler.update()\n",
        # the update in another method the loop calls, or in a method of the base
        # class, defined elsewhere, that the loop runs
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self):\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "    def train(self, loader):\n"
        "        for batch in loader:\n"
        "            self.train_one_iter(batch)\n"
        "            self.after_iter()\n"
        "    def train_one_iter(self, batch):\n"
        "        self.scaler.scale(self.model(batch).mean()).backward()\n"
        "        self.scaler.step(self.optimizer)\n"
        "    def after_iter(self):\n"
        "        self.scaler.update()\n",
        "import torch\n"
        "from engine import BaseTrainer\n"
        "class Trainer(BaseTrainer):\n"
        "    def __init__(self):\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "    def train(self, loader):\n"
        "        for batch in loader:\n"
        "            self.train_one_iter(batch)\n"
        "            self.after_iter()\n"
        "    def train_one_iter(self, batch):\n"
        "        self.scaler.scale(self.model(batch).mean()).backward()\n"
        "        self.scaler.step(self.optimizer)\n",
        # the function that steps updates too
        "import torch\n"
        "def train_step(model, optimizer, scaler, batch):\n"
        "    scaler.scale(model(batch).mean()).backward()\n"
        "    scaler.step(optimizer)\n"
        "    scaler.update()\n"
        "def train(model, optimizer, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    for batch in loader:\n"
        "        train_step(model, optimizer, scaler, batch)\n",
        # the method stepping one optimizer is called in a loop over the optimizers,
        # and the update follows that loop
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, optimizers):\n"
        "        self.optimizers = optimizers\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "    def _step(self, optimizer):\n"
        "        self.scaler.step(optimizer)\n"
        "        optimizer.zero_grad()\n"
        "    def fit(self, loader):\n"
        "        for batch in loader:\n"
        "            self.scaler.scale(self.model(batch).mean()).backward()\n"
        "            self.step_all()\n"
        "    def step_all(self):\n"
        "        for optimizer in self.optimizers:\n"
        "            self._step(optimizer)\n"
        "        self.scaler.update()\n",
        # the loop updates the scaler after the method called on its class steps it
        "import torch\n"
        "\n"
        "\n"
        "class Trainer:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model = model\n"
        "        self.optimizer = optimizer\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "\n"
        "    def _step(self, loss):\n"
        "        self.scaler.scale(loss).backward()\n"
        "        self.scaler.step(self.optimizer)\n"
        "\n"
        "    def fit(self, loader):\n"
        "        for x in loader:\n"
        "            self.optimizer.zero_grad()\n"
        "            with torch.autocast('cuda'):\n"
        "                loss = self.model(x).sum()\n"
        "            Trainer._step(self, loss)\n"
        "            self.scaler.update()\n",
        # the same trainer, its methods calling their instance `trainer`: `trainer.after_iter()`,
        # a method of its base elsewhere, may update the scaler as `self.after_iter()` may
        "import torch\n"
        "from engine import BaseTrainer\n"
        "class Trainer(BaseTrainer):\n"
        "    def __init__(trainer):\n"
        "        trainer.scaler = torch.amp.GradScaler('cuda')\n"
        "    def train(trainer, loader):\n"
        "        for batch in loader:\n"
        "            trainer.train_one_iter(batch)\n"
        "            trainer.after_iter()\n"
        "    def train_one_iter(trainer, batch):\n"
        "        trainer.scaler.scale(trainer.model(batch).mean()).backward()\n"
        "        trainer.scaler.step(trainer.optimizer)\n",
        # the optimizer whose step hook updates the scaler is stepped in the loop too: its
        # hook updates on every iteration
        "import torch\n"
        "def train(model, opt, swa_opt, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    def update_scale(*_):\n"
        "        scaler.update()\n"
        "    swa_opt.register_step_post_hook(update_scale)\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(opt)\n"
        "        swa_opt.step()\n",
        # the same, the optimizer handed to a function that may step it
        "import torch\n"
        "def train(model, opts, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    opts['d'].register_step_post_hook(lambda *_: scaler.update())\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(opts['g'])\n"
        "        train_discriminator(model, opts['d'], x)\n",
        # the hook goes on another optimizer and on one of a loop, which may be the one stepped
        "import torch\n"
        "def train(model, opts, swa_opt, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    def update_scale(*_):\n"
        "        scaler.update()\n"
        "    swa_opt.register_step_post_hook(update_scale)\n"
        "    for i in range(len(opts)):\n"
        "        opts[i].register_step_post_hook(update_scale)\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(opts['g'])\n",
        # the optimizer whose hook updates is stepped through a list, a dict, or code out
        # of sight that keeps it: its hook may run in the loop
        "import torch\n"
        "def train(model, opt, ema_opt, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    ema_opt.register_step_post_hook(lambda *_: scaler.update())\n"
        "    optimizers = [opt, ema_opt]\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(opt)\n"
        "        for each in optimizers:\n"
        "            each.step()\n",
        "import torch\n"
        "def train(model, opt, ema_opt, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    ema_opt.register_step_post_hook(lambda *_: scaler.update())\n"
        "    extra = {'ema': ema_opt}\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(opt)\n"
        "        extra['ema'].step()\n",
        "import torch\n"
        "from callbacks import AveragingCallback\n"
        "def train(model, opt, ema_opt, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    ema_opt.register_step_post_hook(lambda *_: scaler.update())\n"
        "    callback = AveragingCallback(optimizers=[ema_opt])\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(opt)\n"
        "        callback.on_batch_end()\n",
        "import torch\n"
        "def train(model, opt, ema_opt, loader, trainer):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    ema_opt.register_step_post_hook(lambda *_: scaler.update())\n"
        "    trainer.ema_optimizer = ema_opt\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(opt)\n"
        "        trainer.after_step()\n",
        # an item picked by a parameter may be the one whose hook updates
        "import torch\n"
        "def train(model, opts, loader, name):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    opts['d'].register_step_post_hook(lambda *_: scaler.update())\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(opts['g'])\n"
        "        opts[name].step()\n",
    )

    def finish(self) -> None:
        receivers = self.ctx.receivers
        steps: list[tuple[cst.Call, cst.BaseExpression, Binding]] = []
        updated: set[Binding] = set()
        for node in self.ctx.nodes_of(cst.Call):
            for method in ("step", "update"):
                scaler = method_call(node, method)
                if scaler is None or not receivers.is_kind(scaler, GRAD_SCALER):
                    continue
                binding = receivers.binding(scaler)
                if binding is None:
                    continue
                if method == "update":
                    updated.add(binding)
                elif node.args:  # type: ignore[attr-defined]
                    steps.append((node, scaler, binding))  # type: ignore[arg-type]
        updating_helpers = self._functions_updating_a_scaler()
        if self._referenced_without_a_call(updating_helpers):
            return  # `self.on_step_end = [self.update_scale]`: called where this rule cannot see
        # steps outside any loop of their function, by function: followed to the loops
        # that call it (no fix there: the function's callers elsewhere may update)
        called_steps: dict[cst.FunctionDef, list[cst.Call]] = {}
        for step, scaler, binding in steps:
            if scaler_switched_off(self.ctx, binding) or self._handed_out(scaler, binding, step.args[0].value) or self._overridden(binding):
                continue
            loop = self._training_loop(step)
            if loop is None:
                func = self._step_function(step)
                if func is not None:
                    called_steps.setdefault(func, []).append(step)
                continue
            if self._updates_in(loop.body, binding, updating_helpers, self.ctx.code(scaler)):
                continue
            others = [other for other, _, same in steps if same == binding and other is not step
                      and any(ancestor is loop for ancestor in self.ctx.ancestors(other))]
            if any(self.ctx.order_index(other) > self.ctx.order_index(step) for other in others):
                continue  # one missing update, one finding: at the loop's last step
            # one update per iteration, after every step: with several steps (a GAN's, a
            # loop over optimizers) an update after each would run the steps after the
            # first on a scale already changed, so no fix
            once = not loops_within(self.ctx, step, loop)  # no loop over optimizers in between
            hooked = self._update_hooked(step, scaler, binding)
            if hooked is not None:
                # no fix: an `update()` added after the step would run a second time on every
                # step that is not skipped, and raise; the hook itself has to go. A hook that
                # may not be there while the loop runs gets the plain message
                during = self._registered_before(hooked, loop)
                self.report(step, _UPDATED_IN_A_HOOK.format(self.ctx.code(hooked.func)) if during else None)
                continue
            fix = (self._fix(step, scaler) if once and not others and not updated and not updating_helpers
                   and self._built_here(binding) and not self._handed_beyond_the_file(scaler, binding) else None)
            self.report(step, fix=fix)
        for func, found in called_steps.items():
            stepped = {self.ctx.code(step.args[0].value) for step in found}
            if self._called_in_a_loop_without_update(func, stepped, updating_helpers):
                self.report(max(found, key=self.ctx.order_index))  # one finding per function: its last step
        self._steps_of_other_modules([step for step, _, _ in steps], updating_helpers)

    def _steps_of_other_modules(self, own_steps: list[cst.Call], helpers: set[str]) -> None:
        """Calls of another module's function that steps a GradScaler and cannot update
        one (`scaled_step(model, opt, scaler, batch)` of engine.py, which leaves the
        update to its callers), in a loop of this file from whose body no `update()` can
        be reached (see `_may_update`): one finding per loop, at its last such call. A
        function that runs a loop of its own is judged in its module; a loop with a
        scaler step of this file's own is judged with that step."""
        summaries = self.ctx.summaries
        by_loop: dict[cst.For | cst.While, list[cst.Call]] = {}
        # calls outside any loop of their function, by function: followed to the loops that call it
        by_function: dict[cst.FunctionDef, list[cst.Call]] = {}
        for call in self.ctx.nodes_of(cst.Call):
            summary = summaries.of_external_call(call)  # type: ignore[arg-type]
            if (summary is None or not summary.does(SCALER_STEP) or summary.does(SCALER_UPDATE)
                    or summary.does(LOOP)):
                continue
            loop = self._outermost_loop(call, set())
            if loop is not None:
                by_loop.setdefault(loop, []).append(call)  # type: ignore[arg-type]
                continue
            func = self._step_function(call)  # type: ignore[arg-type]
            if func is not None:
                by_function.setdefault(func, []).append(call)  # type: ignore[arg-type]
        own_functions = {self._step_function(step) for step in own_steps}
        for func, calls in by_function.items():
            if func not in own_functions and self._called_in_a_loop_without_update(func, set(), helpers):
                last = max(calls, key=self.ctx.order_index)
                self.report(last, _STEPS_ELSEWHERE.format(self.ctx.code(last.func)))
        for loop, calls in by_loop.items():
            if any(ancestor is loop for step in own_steps for ancestor in self.ctx.ancestors(step)):
                continue
            if not self._may_update(loop.body, helpers):
                last = max(calls, key=self.ctx.order_index)
                self.report(last, _STEPS_ELSEWHERE.format(self.ctx.code(last.func)))

    def _step_function(self, step: cst.Call) -> cst.FunctionDef | None:
        """The function a step outside any training loop runs in (see `_training_loop`),
        unless a lambda or a class comes first."""
        for ancestor in self.ctx.ancestors(step):
            if type(ancestor) is cst.FunctionDef:
                return ancestor  # type: ignore[return-value]
            if type(ancestor) in (cst.ClassDef, cst.Lambda):
                return None
        return None

    def _called_in_a_loop_without_update(self, func: cst.FunctionDef, stepped: set[str], helpers: set[str]) -> bool:
        """`func` (which steps a scaler) is called, directly or through functions of this
        file (up to `_CALLER_DEPTH` calls away), inside a loop of another function from
        whose body no `update()` can be reached: neither in it, nor in a function of this
        file it calls (transitively, `func` included), nor through code this file cannot
        see (see `_may_update`). The outermost loop of the caller is the one judged, so an
        update anywhere in it (per iteration or per epoch) is enough to stay silent."""
        seen = {func}
        callees = [func]
        for _ in range(_CALLER_DEPTH):
            callers: list[cst.FunctionDef] = []
            for callee in callees:
                for site in self.ctx.call_sites(callee):
                    # the optimizers `func` steps, as its calls give them (`self._step(opt)`)
                    given = {name for param, arg in bound_arguments(self.ctx, site, callee)[0]
                             if callee is func and param in stepped
                             for name in [self.ctx.code(arg)] if type(arg) is cst.Name}
                    loop = self._outermost_loop(site, given)
                    if loop is not None:
                        if not self._may_update(loop.body, helpers):
                            return True
                        continue
                    caller = self.ctx.enclosing_function(site)
                    if caller is not None and caller not in seen:
                        seen.add(caller)
                        callers.append(caller)
            callees = callers
        return False

    def _outermost_loop(self, node: cst.CSTNode, stepped: set[str]) -> cst.For | cst.While | None:
        """The outermost loop around `node` within its function (or module) body; not a
        loop over the optimizers the call steps (`stepped`: `for opt in self.optimizers:
        self._step(opt)`), whose passes are the parts of one step: the update follows
        them all."""
        found = None
        for ancestor in self.ctx.ancestors(node):
            if type(ancestor) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
                break
            if type(ancestor) is cst.While or (type(ancestor) is cst.For
                                               and not target_names(ancestor.target) & stepped):
                found = ancestor
        return found  # type: ignore[return-value]

    def _may_update(self, body: cst.CSTNode, helpers: set[str]) -> bool:
        """Whether running `body` may update a scaler: an `update()` on one in it or in a
        function of this file it calls (transitively); a method named like one of this
        file's that update (`hook.after_step()`); a method of `self` this file does not
        define (inherited from a base class elsewhere) or one of `super()`; or code this
        file cannot see that is handed a scaler or what holds one (`end_step(scaler)`,
        `callbacks.on_step(self)`)."""
        receivers = self.ctx.receivers
        holders = self.ctx.shared(_scaler_holders)
        bodies, visited = [body], set()
        while bodies:
            for node in iter_nodes(bodies.pop()):
                if type(node) is not cst.Call:
                    continue
                scaler = method_call(node, "update")
                if scaler is not None and (receivers.is_kind(scaler, GRAD_SCALER) or named_scaler(scaler)):
                    return True
                called = self.ctx.functions_called(node)
                if called:
                    for func in called:
                        if func not in visited:
                            visited.add(func)
                            bodies.append(func.body)
                    continue
                summary = self.ctx.summaries.of_external_call(node)
                if summary is not None:  # another module's function: its summary says
                    if summary.does(SCALER_UPDATE):
                        return True
                    continue
                target = node.func
                if type(target) is cst.Attribute:
                    if target.attr.value in helpers:
                        return True
                    owner = target.value
                    if type(owner) is cst.Call and type(owner.func) is cst.Name and owner.func.value == "super":
                        return True
                    if (receiver_method(self.ctx, owner, classes=True) is not None
                            and not self._assigned_attribute(self.ctx.code(target))):
                        return True  # `self.after_iter()` of a base class elsewhere
                if not holders.isdisjoint(handed_arguments(self.ctx, node)):
                    return True
        return False

    def _assigned_attribute(self, written: str) -> bool:
        """`self.model` is assigned somewhere in the file: calling it calls the object
        stored there, not a method of the class."""
        for node in self.ctx.shared(_by_dotted_name).get(written, ()):
            parent = self.ctx.parent(node)
            if type(parent) in (cst.AssignTarget, cst.AnnAssign, cst.AugAssign) and parent.target is node:  # type: ignore[attr-defined]
                return True
        return False

    def _handed_out(self, scaler: cst.BaseExpression, binding: Binding, stepped: cst.BaseExpression) -> bool:
        """The scaler, or its `update` method, reaches code that may call it where
        this loop cannot see: given to a call whose result is kept, anywhere in the
        file (`hook = StepHook(scaler)`, then `hook.after_step()` in the loop), stored
        (`end_of_step = scaler.update`, a list of callbacks), or read in a lambda
        or a function defined inside (an optimizer's step hook), unless that is a step
        post-hook of the optimizer `stepped` (see `_registered_hook`): it is known when
        that runs, and when not. Only its own methods called on it (`scaler.step(opt)`,
        `scaler.get_scale()`) say what it does."""
        written = self.ctx.code(scaler)
        for node in self.ctx.shared(_by_variable).get((written, binding), ()):
            parent = self.ctx.parent(node)
            if type(parent) in (cst.AssignTarget, cst.AnnAssign, cst.AugAssign):
                continue  # where it is bound
            nested = self._inside_nested(node, scaler)  # a hook, run at another time
            if type(parent) is cst.Attribute and parent.value is node:
                called = self.ctx.parent(parent)
                if type(called) is cst.Call and called.func is parent:
                    if (nested and parent.attr.value == "update" and self._registered_hook(node, stepped) is None
                            and not self._hooked_on_another(node, stepped)):
                        return True
                    continue  # `scaler.step(opt)`
            if type(parent) is cst.Attribute and parent.attr is node:
                continue  # the name part of `self.scaler`: judged as the whole
            if type(parent) is cst.Arg and not nested and not self._kept_by_result(parent):
                # `end_step(scaler, opt)`: does its work then (in this loop, see `_updates_in`);
                # `install_update_hook(opt, scaler)`: updates in a hook that a skipped step misses
                continue
            if self._only_tested(node):
                continue  # `if scaler is not None:`, `if self.scaler and "scaler" in state:`
            return True
        return False

    def _only_tested(self, node: cst.CSTNode) -> bool:
        """`node` is only tested: compared, negated, or the condition of an `if`, a
        `while`, an `if` expression or an `assert` (alone or joined by `and`/`or`)."""
        child, parent = node, self.ctx.parent(node)
        while type(parent) is cst.BooleanOperation:
            child, parent = parent, self.ctx.parent(parent)
        if type(parent) in (cst.Comparison, cst.ComparisonTarget):
            return True
        if type(parent) is cst.UnaryOperation and type(parent.operator) is cst.Not:
            return True
        return type(parent) in (cst.If, cst.While, cst.IfExp, cst.Assert) and parent.test is child  # type: ignore[attr-defined]

    def _kept_by_result(self, arg: cst.Arg) -> bool:
        """The call given `arg` returns something kept (`hook = StepHook(scaler)`),
        which may hold the scaler and update it whenever it is used."""
        call = self.ctx.parent(arg)
        return type(call) is cst.Call and type(self.ctx.parent(call)) in (cst.Assign, cst.AnnAssign)

    def _update_hooked(self, step: cst.Call, scaler: cst.BaseExpression, binding: Binding) -> cst.Call | None:
        """The call, anywhere in the file, that registers a hook updating the scaler after
        each step of the optimizer `step` steps: `optimizer.register_step_post_hook(...)`
        itself (see `_registered_hook`), or a function of the project handed the scaler
        that does (see `_updated_later`), if any."""
        stepped = step.args[0].value
        for node in self.ctx.shared(_by_variable).get((self.ctx.code(scaler), binding), ()):
            parent = self.ctx.parent(node)
            if type(parent) is cst.Arg and parent.value is node and self._updated_later(parent, stepped):
                return self.ctx.parent(parent)  # type: ignore[return-value]
            if type(parent) is cst.Attribute and parent.value is node and parent.attr.value == "update":
                registration = self._registered_hook(node, stepped)
                if registration is not None:
                    return registration
        return None

    def _registered_hook(self, node: cst.CSTNode, stepped: cst.BaseExpression) -> cst.Call | None:
        """The `stepped.register_step_post_hook(hook)` (or `register_step_pre_hook`) of this
        file whose hook `node` is read in, if any: a lambda, or a function defined by name in
        the block the registration runs in (see `hook_body`)."""
        for call, optimizer in self._hooks_around(node):
            if self._same_optimizer(optimizer, stepped):
                return call
        return None

    def _hooks_around(self, node: cst.CSTNode) -> list[tuple[cst.Call, cst.BaseExpression]]:
        """The step hook registrations of this file whose hook `node` is read in, with their
        optimizers: looked up by `node`'s ancestors, not by scanning every registration."""
        by_body = self.ctx.shared(_hooks_by_body)
        return [found for ancestor in self.ctx.ancestors(node) for found in by_body.get(ancestor, ())]

    def _registered_before(self, registration: cst.Call, loop: cst.For | cst.While) -> bool:
        """`registration` (of a hook, or a call of a helper that registers one) runs before
        `loop`, in the same function (or both at module level), and is kept: its result is
        dropped or bound to a variable that no `.remove()` is called on (`handle.remove()`
        of the same scope, not of a same-named handle elsewhere)."""
        if (self.ctx.enclosing_function(registration) is not self.ctx.enclosing_function(loop)
                or self.ctx.order_index(registration) > self.ctx.order_index(loop)):
            return False
        parent = self.ctx.parent(registration)
        if type(parent) is cst.Expr:
            return True
        if type(parent) is not cst.Assign or len(parent.targets) != 1 or type(parent.targets[0].target) is not cst.Name:
            return False
        return self.ctx.receivers.binding(parent.targets[0].target) not in self.ctx.shared(_removed_handles)

    def _updated_later(self, arg: cst.Arg, stepped: cst.BaseExpression) -> bool:
        """The function of the project the call given `arg` runs registers, on every call,
        a step post-hook that updates it on the optimizer the call gives, and that is the
        one `stepped` (`install_update_hook(optimizer, scaler)` running
        `optimizer.register_step_post_hook(lambda *_: scaler.update())`, in any module;
        see `Summary.updates_later`)."""
        call = self.ctx.parent(arg)
        summary = self.ctx.summaries.of_call(call) if type(call) is cst.Call else None  # type: ignore[arg-type]
        if summary is None or not summary.updates_later:
            return False
        given = {summary.slot(slot): value for slot, value in argument_slots(call)}  # type: ignore[arg-type]
        return any(given.get(scaler) is arg and optimizer in given
                   and self._same_optimizer(given[optimizer].value, stepped)
                   for scaler, optimizer in summary.updates_later)

    def _same_optimizer(self, one: cst.BaseExpression, other: cst.BaseExpression) -> bool:
        """`one` and `other` hold one optimizer, by what they read, not how they are written
        (`opt = self.optimizer`, `o = opts["g"]`; see `Receivers.same_object`); where that
        cannot be told, they read one variable (`opt = a`, the hook, `opt = b`, the step): a
        finding is due either way, the hook skipped with the step or never run in the loop."""
        receivers = self.ctx.receivers
        same = receivers.same_object(one, other)
        if same is None:
            binding = receivers.binding(one)
            return binding is not None and binding == receivers.binding(other)
        return same

    def _hooked_on_another(self, node: cst.CSTNode, stepped: cst.BaseExpression) -> bool:
        """`node` is read in a step hook (a lambda, a function by name) of this file
        registered only on optimizers other than `stepped` that nothing in the file may
        step (see `_may_be_stepped`). Its update runs when such an optimizer steps, so
        never in this loop."""
        hooked = [optimizer for _, optimizer in self._hooks_around(node)]
        return bool(hooked) and all(self.ctx.receivers.same_object(optimizer, stepped) is False
                                    and not self._may_be_stepped(optimizer) for optimizer in hooked)

    def _may_be_stepped(self, optimizer: cst.BaseExpression) -> bool:
        """The file reads `optimizer`, or a container holding it, where it may be stepped or
        reach code out of sight: anywhere but the receiver of a step hook registration, a
        test (`if swa_opt is not None:`), an attribute read (`swa_opt.param_groups`) or the
        value of a plain alias (`o = swa_opt`, whose own reads are judged alike). A `.step()`,
        a call's argument, an item of a list or dict, an attribute stored, a loop over its
        container: it may be stepped. A class's attribute, or an optimizer whose variable
        may hold more than one object, may always be."""
        path = self.ctx.receivers.object_path(optimizer)
        if path is None or type(path[0].owner) is cst.ClassDef:
            return True
        root, items = path
        for read, read_items in self.ctx.shared(_reads_by_root).get(root, ()):
            if len(read_items) > len(items) or not items_may_match(read_items, items):
                continue  # something of it (`swa_opt.param_groups`), or another item (`opts["g"]`)
            if len(read_items) == len(items):
                if not self._keeps_nothing(read):
                    return True
            elif not self._reads_an_item(read):
                return True  # its container, used whole: `for o in opts:`, `train(opts)`
        return False

    def _keeps_nothing(self, read: cst.BaseExpression) -> bool:
        """`read` (an optimizer) is the receiver of a step hook registration, only tested,
        read an attribute of (not its `step`, nor called), or plainly assigned to a
        variable that holds it alone (`o = swa_opt`, not `callbacks.swa = swa_opt`), whose
        reads `_reads_by_root` lists with its own."""
        parent = self.ctx.parent(read)
        if type(parent) is cst.Attribute and parent.value is read:
            called = self.ctx.parent(parent)
            if type(called) is cst.Call and called.func is parent:
                return parent.attr.value in STEP_HOOK_REGISTRATIONS
            return parent.attr.value != "step"
        if type(parent) in (cst.Assign, cst.AnnAssign) and parent.value is read:  # type: ignore[attr-defined]
            targets = parent.targets if type(parent) is cst.Assign else (parent,)  # type: ignore[attr-defined]
            path = self.ctx.receivers.object_path(read)
            return all(self.ctx.receivers.object_path(target.target) == path for target in targets)
        return self._only_tested(read)

    def _reads_an_item(self, container: cst.BaseExpression) -> bool:
        """`container` is read only to pick an item or attribute the linter tells apart
        (`opts["g"]`, `cfg.opts`, not `opts[i]` of a loop nor `opts.values()`), listed in
        `_reads_by_root` apart, or only tested."""
        parent = self.ctx.parent(container)
        if type(parent) in (cst.Attribute, cst.Subscript) and parent.value is container:  # type: ignore[attr-defined]
            called = self.ctx.parent(parent)
            return not (type(called) is cst.Call and called.func is parent) and \
                self.ctx.receivers.object_path(parent) is not None  # type: ignore[arg-type]
        return self._only_tested(container)

    def _inside_nested(self, node: cst.CSTNode, reference: cst.CSTNode) -> bool:
        """`node` is read in a lambda or a function defined inside the function
        that holds `reference` (a hook that runs at another time)."""
        outer = self.ctx.enclosing_function(reference)
        nested = False
        for ancestor in self.ctx.ancestors(node):
            if ancestor is outer:
                return nested
            if type(ancestor) is cst.Lambda or (type(ancestor) is cst.FunctionDef and outer is not None):
                nested = True
        return nested and outer is None  # at module level, any function or lambda runs at another time

    def _training_loop(self, step: cst.Call) -> cst.For | cst.While | None:
        """The innermost loop around `step` in its function, skipping a loop
        over the optimizers being stepped."""
        stepped = self.ctx.code(step.args[0].value)
        for ancestor in self.ctx.ancestors(step):
            if type(ancestor) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
                return None
            if type(ancestor) is cst.For and self.ctx.code(ancestor.target) == stepped:
                continue
            if type(ancestor) in (cst.For, cst.While):
                return ancestor
        return None

    def _updates_in(self, body: cst.CSTNode, binding: Binding, helpers: set[str], scaler_code: str) -> bool:
        """Whether the loop's body may update the scaler: itself, or under another name
        that holds it (`scaler = self.scaler`, then `self.scaler.update()`), through a
        function of this file that updates one, or through code it cannot see that is
        handed the scaler or the object holding it (`end_step(scaler, opt)` of another module)."""
        receivers = self.ctx.receivers
        same = receivers.aliases(binding)
        for node in iter_nodes(body):
            if type(node) is not cst.Call:
                continue
            scaler = method_call(node, "update")
            if scaler is not None and receivers.binding(scaler) in same:
                return True
            callee = self.ctx.local_callee(node)
            if callee is not None:
                if callee.name.value in helpers:
                    return True
            elif type(node.func) is cst.Attribute and node.func.attr.value in helpers:
                return True  # `hook.after_step()`: a method of this file's that updates one
            elif hands_over_scaler(self.ctx, node, scaler_code):
                return True
        return False

    def _referenced_without_a_call(self, names: set[str]) -> bool:
        """A function of this file that updates a scaler is handed on (stored in a
        list of callbacks, handed to a call) rather than called. A step hook of an optimizer
        is known (see `_registered_hook`): when it runs, and when not."""
        step_hooks = {id(call.args[0].value) for call, _, _ in self.ctx.shared(_step_hook_registrations)}  # type: ignore[attr-defined]
        for node in self.ctx.nodes_of(cst.Name):
            if id(node) in step_hooks:
                continue
            if node.value not in names:  # type: ignore[attr-defined]
                continue
            parent = self.ctx.parent(node)
            if type(parent) is cst.Attribute and parent.attr is node:
                node, parent = parent, self.ctx.parent(parent)
            # handed on as a value: in a list or dict of callbacks, as an argument, assigned, returned
            if (type(parent) in (cst.Element, cst.DictElement, cst.Return)
                    or (type(parent) is cst.Arg and parent.value is node)
                    or (type(parent) in (cst.Assign, cst.AnnAssign) and parent.value is node)):
                return True
        return False

    def _overridden(self, binding: Binding) -> bool:
        """The scaler is built from a class of this file that defines its own `step` or
        `update` (a scaler whose `step()` updates): what its methods do is its own."""
        for value in self.ctx.receivers.assigned(binding):
            if type(value) is cst.Call and type(value.func) is cst.Name:
                for cls in self.ctx.nodes_of(cst.ClassDef):
                    if cls.name.value == value.func.value and any(  # type: ignore[attr-defined]
                            type(item) is cst.FunctionDef and item.name.value in ("step", "update")
                            for item in cls.body.body):  # type: ignore[attr-defined]
                        return True
        return False

    def _functions_updating_a_scaler(self) -> set[str]:
        """Functions of this file that call `update()` on a GradScaler, or on an
        attribute named for one (`self.scaler.update()` of a hook given the scaler)."""
        receivers = self.ctx.receivers
        names = set()
        for name, defs in self.ctx.scopes.functions.items():
            for func in defs:
                for node in iter_nodes(func.body):
                    scaler = method_call(node, "update")
                    if scaler is not None and (receivers.is_kind(scaler, GRAD_SCALER) or named_scaler(scaler)):
                        names.add(name)
        return names

    def _built_here(self, binding: Binding) -> bool:
        """The scaler is built from torch's `GradScaler` in this file, and only so: not
        a parameter (its caller, here or in another module, may update it once per
        epoch), nor a class of the project (whose `step()` may update)."""
        values = self.ctx.receivers.assigned(binding)
        return bool(values) and all(self._torch_scaler_or_none(value) for value in values)

    def _handed_beyond_the_file(self, scaler: cst.BaseExpression, binding: Binding) -> bool:
        """The scaler is given, outside any loop, to a call of a function this file does
        not define (`install(events, scaler)` of another module, once, to set up) that may
        keep it (see `_may_keep`): it may subscribe a callback that updates it
        (`events.subscribe("step_end", lambda *_: scaler.update())`), and an added
        `update()` would run twice. A call in a loop does its work then (see `_handed_out`)."""
        for node in self.ctx.shared(_by_variable).get((self.ctx.code(scaler), binding), ()):
            arg = self.ctx.parent(node)
            if type(arg) is not cst.Arg or arg.value is not node:
                continue
            call = self.ctx.parent(arg)
            if (type(call) is cst.Call and self.ctx.local_callee(call) is None
                    and not loops_within(self.ctx, call, None) and self._may_keep(arg)):
                return True
        return False

    def _may_keep(self, arg: cst.Arg) -> bool:
        """The call given the scaler as `arg` may keep it to update later: any call but one
        that only reads it (`print("using", scaler)`, `log.info("scaler %s", scaler)`), or a
        function of the project whose summary says it only reads the param given it
        (`Summary.read_params`: `log_scale(scaler)` printing `scaler.get_scale()`)."""
        call: cst.Call = self.ctx.parent(arg)  # type: ignore[assignment]
        if reads_only(self.ctx, call):
            return False
        summary = self.ctx.summaries.of_unwalked_call(call)
        if summary is None:
            return True
        slots = [slot for slot, given in argument_slots(call) if given is arg]
        return not slots or summary.slot(slots[0]) not in summary.read_params

    def _torch_scaler_or_none(self, value: cst.BaseExpression) -> bool:
        """`torch.amp.GradScaler(...)`, or that or None (`GradScaler() if fp16 else None`)."""
        arms = alternatives(value)
        scalers = [arm for arm in arms
                   if type(arm) is cst.Call and constructor_kind(self.ctx.call_name(arm)) == GRAD_SCALER]
        return bool(scalers) and all(arm in scalers or (type(arm) is cst.Name and arm.value == "None") for arm in arms)

    def _fix(self, step: cst.Call, scaler: cst.BaseExpression) -> Fix | None:
        statement = statement_of(self.ctx, step)
        if statement is None or any(type(part) in (cst.Return, cst.Assert) for part in statement.body):  # type: ignore[attr-defined]
            return None  # `return scaler.step(opt)`: a line after it never runs; an `assert`'s may not run
        if in_try(self.ctx, step):
            return None  # the error the next step raises without an update may be caught and relied on
        # a step that may not run (`scaler.step(opt) if ready else None`, `ready and
        # scaler.step(opt)`): an update after it would run without one, and raise
        if any(type(node) in (cst.IfExp, cst.BooleanOperation, cst.Lambda, cst.GeneratorExp, cst.ListComp)
               for node in ancestors_within(self.ctx, step, statement)):
            return None
        update = cst.parse_statement(f"{self.ctx.code(scaler)}.update()\n")
        return Fix({statement: cst.FlattenSentinel([statement, update])})


_STEPS_ELSEWHERE = ("`{}()` steps a GradScaler in a loop that never calls `scaler.update()`: the loss scale "
                    "never adapts and the next step raises; call `scaler.update()` after it")

_UPDATED_IN_A_HOOK = ("`scaler.step()` in a loop whose only `scaler.update()` runs in an optimizer step hook that "
                      "`{}()` registers: a step skipped for inf/NaN gradients does not run the hook, so that update "
                      "is missed and the next `scaler.step()` raises; call `scaler.update()` after the step in the "
                      "loop instead of in the hook")

# how many calls away from the loop that calls it a function's step is followed
_CALLER_DEPTH = 3


def _scaler_holders(ctx: FileContext) -> frozenset[str]:
    """The GradScalers of the file as written (`scaler`, `self.scaler`), and what holds
    them (`self`): a call given one of these may update a scaler."""
    receivers = ctx.receivers
    holders: set[str] = set()
    for node in ctx.nodes_of(cst.Call):
        scaler = method_call(node, *_SCALER_OWN_METHODS)
        if scaler is not None and (receivers.is_kind(scaler, GRAD_SCALER) or named_scaler(scaler)):
            holders |= scaler_owners(ctx.code(scaler))
    return frozenset(holders)


_SCALER_OWN_METHODS = ("step", "scale", "unscale_", "update")




def _by_dotted_name(ctx: FileContext) -> dict[str, list[cst.CSTNode]]:
    """The names and attribute chains of the file by how they are written (`scaler`,
    `self.scaler`), indexed once: every finding asks of its own scaler."""
    index: dict[str, list[cst.CSTNode]] = {}
    for node in ctx.nodes_of(cst.Name, cst.Attribute):
        name = dotted_name(node)  # type: ignore[arg-type]
        if name is not None:
            index.setdefault(name, []).append(node)
    return index


def _by_variable(ctx: FileContext) -> dict[tuple[str, Binding], list[cst.CSTNode]]:
    """The names and attribute chains of the file by how they are written and the variable
    they read (see `Receivers.binding`), indexed once: a file of many functions each with
    its own `scaler` reads each function's own, not every one of the file's."""
    receivers = ctx.receivers
    index: dict[tuple[str, Binding], list[cst.CSTNode]] = {}
    for written, nodes in ctx.shared(_by_dotted_name).items():
        for node in nodes:
            binding = receivers.binding(node)  # type: ignore[arg-type]
            if binding is not None:
                index.setdefault((written, binding), []).append(node)
    return index


def _step_hook_registrations(ctx: FileContext) -> list[tuple[cst.Call, cst.BaseExpression, cst.CSTNode]]:
    """Each `optimizer.register_step_post_hook(hook)` (or `register_step_pre_hook`) of the
    file with its optimizer and what its hook runs, where that is known (see `hook_body`)."""
    found = []
    for call in ctx.nodes_of(cst.Call):
        optimizer = method_call(call, *STEP_HOOK_REGISTRATIONS)  # type: ignore[arg-type]
        if optimizer is None or not call.args or call.args[0].keyword is not None:  # type: ignore[attr-defined]
            continue
        func = ctx.enclosing_function(call)
        body = hook_body(call.args[0].value, (func.body.body if func is not None else ctx.module.body))  # type: ignore[attr-defined]
        if body is not None:
            found.append((call, optimizer, body))
    return found


def _hooks_by_body(ctx: FileContext) -> dict[cst.CSTNode, list[tuple[cst.Call, cst.BaseExpression]]]:
    """The step hook registrations of the file (see `_step_hook_registrations`) by what
    their hook runs, with their optimizers."""
    index: dict[cst.CSTNode, list[tuple[cst.Call, cst.BaseExpression]]] = {}
    for call, optimizer, body in ctx.shared(_step_hook_registrations):
        index.setdefault(body, []).append((call, optimizer))
    return index


def _reads_by_root(ctx: FileContext) -> dict[Binding, list[tuple[cst.BaseExpression, ObjectItems]]]:
    """Every reference the file reads (a name, an attribute, an item), with the attributes
    and items read on the way, by the variable it is read from (see `Receivers.object_path`),
    indexed once: each step hook's optimizer then looks only at the reads of its own variable."""
    receivers = ctx.receivers
    index: dict[Binding, list[tuple[cst.BaseExpression, ObjectItems]]] = {}
    for node in ctx.nodes_of(cst.Name, cst.Attribute, cst.Subscript):
        parent = ctx.parent(node)
        if type(parent) in _NOT_READ and getattr(parent, _NOT_READ[type(parent)]) is node:  # type: ignore[index]
            continue
        path = receivers.object_path(node)  # type: ignore[arg-type]
        if path is not None:
            index.setdefault(path[0], []).append((node, path[1]))  # type: ignore[arg-type]
    return index


# the nodes whose field names or binds something rather than reading it (see `_reads_by_root`)
_NOT_READ = {cst.Attribute: "attr", cst.Arg: "keyword", cst.Param: "name", cst.AssignTarget: "target",
             cst.AnnAssign: "target", cst.FunctionDef: "name", cst.ClassDef: "name", cst.ImportAlias: "name",
             cst.AsName: "name", cst.NameItem: "name"}


def _removed_handles(ctx: FileContext) -> frozenset[Binding]:
    """The variables of the file that `.remove()` is called on (`handle.remove()` of a
    hook's handle), by binding: a same-named handle of another function is another one."""
    removed = (method_call(call, "remove") for call in ctx.nodes_of(cst.Call))  # type: ignore[arg-type]
    return frozenset(binding for binding in (ctx.receivers.binding(handle) for handle in removed
                                             if type(handle) is cst.Name) if binding is not None)
