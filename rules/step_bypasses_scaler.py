import re
from typing import NamedTuple

import libcst as cst

from trainlint.analysis.flow import Facts, Flow
from trainlint.analysis.precision import manages_optimizers, scaler_holder, scaler_switched_off
from trainlint.analysis.loops import is_optimizer
from trainlint.analysis.phases import leaves_block
from trainlint.analysis.receivers import GRAD_SCALER, OPTIMIZER, Binding
from trainlint.analysis.scopes import argument_slots
from trainlint.analysis.training import code_bodies, method_call, scaled_backward_scaler
from trainlint.analysis.walk import iter_nodes
from trainlint.context import FileContext
from trainlint.rule import Rule
from trainlint.summaries import BACKWARD, SCALER_STEP, SCALER_UPDATE, STEP, UNSCALE, Summary

# what code that tests unscaled gradients for inf/NaN calls or names: `torch.isfinite`,
# `isnan`, `found_inf`, `skip_step`, `check_grads`
_CHECK_WORDS = re.compile(r"finite|(?:^|_)(?:is|has_?)?(?:nan|inf)(?:_|$|s)|overflow|(?:^|_)skip|(?:^|_)check(?:_|s|$)",
                          re.IGNORECASE)


# the messages, naming the optimizer and the scaler as the code does
_BYPASSING = ("`{optimizer}.step()` after `{scaler}.scale(loss).backward()` applies the scaled gradients and does "
              "not skip inf/NaN steps; call `{scaler}.step({optimizer})`")
_UNCHECKED = ("`{optimizer}.step()` after `{scaler}.unscale_({optimizer})` with no inf/NaN check applies the "
              "steps whose gradients overflowed, which `{scaler}.step({optimizer})` skips; call it instead")
_TWICE = ("`{optimizer}.step()` after `{scaler}.step({optimizer})` applies the same gradients a second time, "
          "unchecked for inf/NaN; step only through the scaler on the path that scales the loss")


class _Unscaled(NamedTuple):
    """The scaler's gradients were unscaled by `call` (`scaler.unscale_(opt)`): at
    their true size, but not yet checked for inf/NaN. `optimizer`, when set, is the
    one unscaled where no scaled backward of the scaler is known to reach the call
    (it ran in another function, or the scaler already stepped another optimizer):
    then only a plain step of that optimizer is reported."""

    scaler: Binding
    call: cst.Call
    optimizer: Binding | None = None


class _Stepped(NamedTuple):
    """`call` (`scaler.step(opt)`) stepped `optimizer` with the gradients of a scaled
    backward: until another backward or a `zero_grad()`, a plain step of it applies
    them again."""

    scaler: Binding
    optimizer: Binding
    call: cst.Call


class StepBypassesScaler(Rule):
    """
    ## What it does
    Flags a plain `optimizer.step()` reached after
    `scaler.scale(loss).backward()` in the same iteration, with no
    `scaler.step(optimizer)` in between; also one after
    `scaler.unscale_(optimizer)` when nothing between them tests the
    gradients for inf/NaN, also where the scaled backward ran in another
    function (a sibling closure, the caller) or the scaler already stepped
    another optimizer: the `unscale_` itself says that optimizer's gradients
    were scaled. The scaled backward may run in a function of
    another module of the project handed the scaler (`scaled_backward(scaler,
    loss)` of amp_utils.py): the scaler the call hands is then a GradScaler
    whose scaled gradients the caller's step applies. It may also run in a
    method of an object of a class of the project that scales with the
    object's own scaler (`amp.backward(loss)` running
    `self.scaler.scale(loss).backward()`), until a method of the object
    unscales, steps or updates it (`amp.step(optimizer)`); not where the
    file reaches that scaler itself (`amp.scaler.step(optimizer)`).

    ## Why is this bad?
    After `scaler.scale(loss).backward()` every gradient is multiplied by the
    loss scale (65,536 to start with). `optimizer.step()` applies them as
    they are: the update is tens of thousands of times too large, and steps
    whose gradients overflowed to inf/NaN are applied instead of skipped,
    which writes NaN into the weights. `scaler.step(optimizer)` unscales the
    gradients, checks them, and only then calls `optimizer.step()`.

    ## Example
    ```python
    import torch
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        optimizer.step()
        scaler.update()
    ```

    ## Use instead
    ```python
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    ```

    ## Fix safety
    No fix: the step may sit in code shared with a float32 path, which only
    the author can split.

    ## Limitations
    Only optimizers known to be ones (built from a known optimizer class,
    stepped through a scaler elsewhere in the file, or both stepped and
    cleared with `zero_grad()` in it, as a trainer's `self.optimizer` or an
    optimizer parameter, also as an item of a container of them such as
    `optims.g` of `SimpleNamespace(g=Adam(...), ...)` or a loop over a
    tuple of them) and scalers known to be `GradScaler`s are followed,
    within one function. An optimizer wrapper of the project (a class of
    this file or of another module whose `step()` steps the optimizer it
    holds, as a Noam schedule around Adam does) counts as an optimizer when
    its `step()` steps it plainly; not one whose `step()` goes through a
    scaler (`self.scaler.step(self.optimizer)`) or back-propagates by itself. A step after `scaler.unscale_(optimizer)` applies
    gradients of their true size; it is flagged (inf/NaN steps are still
    applied) unless the code between them may test the gradients: the step
    in an `if` the `unscale_` is not in (`if torch.isfinite(norm):`), an `if`
    that leaves the iteration (`if found_inf: continue`), or a call or a
    name that speaks of finiteness, skipping or checking (`torch.isfinite`,
    `isnan`, `isinf`, `found_inf`, `skip_step`, `check_grads(model)`). A plain step in an
    `if`/`else` whose other branch calls `scaler.step` is taken to be the
    float32 path, unless its own branch scales the backward. A plain
    `optimizer.step()` reached after `scaler.step(optimizer)` of a scaled
    backward, with no other backward or `zero_grad()` between them, is
    flagged too: it applies the same gradients a second time, unchecked (an
    `if args.amp:` branch that steps through the scaler, followed by a step
    for both paths).
    """

    code = "TL105"
    name = "step-bypasses-scaler"
    severity = "error"
    message = _BYPASSING.format(optimizer="optimizer", scaler="scaler")
    triggers = (".scale(",)
    bad = (
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)\n"
        "for x, y in loader:\n"
        "    with torch.autocast('cuda'):\n"
        "        loss = criterion(model(x), y)\n"
        "    scaler.scale(loss).backward()\n"
        "    optimizer.step()  # expect: TL105\n"
        "    scaler.update()\n"
        "    optimizer.zero_grad()\n",
        "from torch.cuda.amp import GradScaler as Scaler\n"
        "from torch.optim import SGD\n"
        "def train(model, loader, accum):\n"
        "    opt = SGD(model.parameters(), lr=0.1)\n"
        "    scaler = Scaler()\n"
        "    for i, batch in enumerate(loader):\n"
        "        scaler.scale(model(batch) / accum).backward()\n"
        "        if (i + 1) % accum == 0:\n"
        "            opt.step()  # expect: TL105\n"
        "            opt.zero_grad()\n",
        "import torch as th\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.optimizer = th.optim.Adam(model.parameters())\n"
        "        self.scaler = th.amp.GradScaler('cuda')\n"
        "    def training_step(self, loss):\n"
        "        self.scaler.scale(loss).backward()\n"
        "        self.optimizer.step()  # expect: TL105\n"
        "        self.scaler.update()\n",
        # parameters resolved through the call site of the same file
        "import torch\n"
        "def fp16_step(scaler, loss, model, optimizer):\n"
        "    scaler.scale(loss).backward()\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "    optimizer.step()  # expect: TL105\n"
        "    scaler.update()\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "fp16_step(torch.amp.GradScaler('cuda'), loss, model, opt)\n",
        # an optimizer the function is given, known by being cleared and stepped (a
        # trainer's `self.optimizer` built elsewhere is known the same way)
        "import torch\n"
        "def train(model, optimizer, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    for x, y in loader:\n"
        "        with torch.autocast('cuda'):\n"
        "            loss = criterion(model(x), y)\n"
        "        optimizer.zero_grad()\n"
        "        scaler.scale(loss).backward()\n"
        "        optimizer.step()  # expect: TL105\n"
        "        scaler.update()\n",
        # the plain branch scales its own backward: it is no float32 path
        "import torch\n"
        "def train(model, loader, optimizer, accum):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    for x in loader:\n"
        "        with torch.autocast('cuda'):\n"
        "            loss = model(x).sum()\n"
        "        if accum:\n"
        "            scaler.scale(loss).backward()\n"
        "            scaler.step(optimizer)\n"
        "        else:\n"
        "            scaler.scale(loss).backward()\n"
        "            optimizer.step()  # expect: TL105\n"
        "        scaler.update()\n"
        "        optimizer.zero_grad()\n",
        # optimizers held by a namespace: one stepped through the scaler, the other not
        "import torch\n"
        "from types import SimpleNamespace\n"
        "def train(G, D, loader):\n"
        "    optims = SimpleNamespace(g=torch.optim.Adam(G.parameters()), d=torch.optim.Adam(D.parameters()))\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    for x, z in loader:\n"
        "        with torch.autocast('cuda'):\n"
        "            d_loss = D(x).mean() - D(G(z).detach()).mean()\n"
        "        optims.d.zero_grad()\n"
        "        scaler.scale(d_loss).backward()\n"
        "        scaler.step(optims.d)\n"
        "        with torch.autocast('cuda'):\n"
        "            g_loss = -D(G(z)).mean()\n"
        "        optims.g.zero_grad()\n"
        "        scaler.scale(g_loss).backward()\n"
        "        optims.g.step()  # expect: TL105\n"
        "        scaler.update()\n",
        # unscaled and clipped, but nothing tests the gradients: inf/NaN steps are applied
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, network):\n"
        "        self.network = network\n"
        "        self.optimizer = torch.optim.SGD(network.parameters(), 0.01)\n"
        "        self.grad_scaler = torch.amp.GradScaler('cuda')\n"
        "    def train_step(self, batch):\n"
        "        self.optimizer.zero_grad(set_to_none=True)\n"
        "        with torch.autocast('cuda'):\n"
        "            loss = self.network(batch).mean()\n"
        "        self.grad_scaler.scale(loss).backward()\n"
        "        self.grad_scaler.unscale_(self.optimizer)\n"
        "        torch.nn.utils.clip_grad_norm_(self.network.parameters(), 1.0)\n"
        "        self.optimizer.step()  # expect: TL105\n"
        "        self.grad_scaler.update()\n",
        # a closure of a method reads the method's `self`: `self.optimizer` and `self.scaler` are its
        "import torch\n"
        "class Trainer:\n"
        "    def fit(self, model, optimizer, loader):\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "        self.optimizer = optimizer\n"
        "        def run_epoch():\n"
        "            for x, y in loader:\n"
        "                self.optimizer.zero_grad()\n"
        "                self.scaler.scale(model(x, y)).backward()\n"
        "                self.optimizer.step()  # expect: TL105\n"
        "                self.scaler.update()\n"
        "        run_epoch()\n",
        # a wrapper of the file whose step() is the plain step of the optimizer it holds (a Noam schedule)
        "import torch\n"
        "class NoamAdam:\n"
        "    def __init__(self, params, lr):\n"
        "        self._optim = torch.optim.Adam(params, lr=lr)\n"
        "    def step(self):\n"
        "        self._optim.step()\n"
        "    def zero_grad(self):\n"
        "        self._optim.zero_grad()\n"
        "def train(model, loader):\n"
        "    optimizer = NoamAdam(model.parameters(), lr=1e-3)\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    for x in loader:\n"
        "        optimizer.zero_grad()\n"
        "        with torch.autocast('cuda'):\n"
        "            loss = model(x).mean()\n"
        "        scaler.scale(loss).backward()\n"
        "        optimizer.step()  # expect: TL105\n"
        "        scaler.update()\n",
        # stepped through the scaler, then plainly again on the path that scaled (torchvision's
        # classification reference once did): the same gradients applied twice, unchecked
        "import torch\n"
        "from torch import nn\n"
        "def train_one_epoch(model, criterion, optimizer, loader, args, scaler=None):\n"
        "    for image, target in loader:\n"
        "        output = model(image)\n"
        "        optimizer.zero_grad()\n"
        "        if args.amp:\n"
        "            with torch.autocast('cuda'):\n"
        "                loss = criterion(output, target)\n"
        "            scaler.scale(loss).backward()\n"
        "            scaler.step(optimizer)\n"
        "            scaler.update()\n"
        "        else:\n"
        "            loss = criterion(output, target)\n"
        "            loss.backward()\n"
        "        optimizer.step()  # expect: TL105\n"
        "def main(model, criterion, loader, args):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    scaler = torch.amp.GradScaler('cuda') if args.amp else None\n"
        "    train_one_epoch(model, criterion, optimizer, loader, args, scaler)\n",
        # a second optimizer unscaled and stepped plainly after the scaler stepped the first
        # (a recommender's embedding optimizer beside its dense one): its overflowed steps are applied
        "import torch\n"
        "def train(model, loader, loss_fn):\n"
        "    dense_opt = torch.optim.SGD(model.top.parameters(), lr=0.1)\n"
        "    sparse_opt = torch.optim.SGD(model.emb.parameters(), lr=0.1)\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    for x, y in loader:\n"
        "        with torch.autocast('cuda'):\n"
        "            loss = loss_fn(model(x), y)\n"
        "        scaler.scale(loss).backward()\n"
        "        scaler.step(dense_opt)\n"
        "        scaler.unscale_(sparse_opt)\n"
        "        sparse_opt.step()  # expect: TL105\n"
        "        scaler.update()\n"
        "        model.zero_grad()\n",
        # the scaled backward in one function, the unscale_ and the plain step in another:
        # `unscale_` itself says the gradients were scaled
        "import torch\n"
        "def main(model, loader, loss_fn):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    def forward_backward(x, y):\n"
        "        with torch.autocast('cuda'):\n"
        "            loss = loss_fn(model(x), y)\n"
        "        scaler.scale(loss).backward()\n"
        "    def weight_update():\n"
        "        scaler.unscale_(optimizer)\n"
        "        optimizer.step()  # expect: TL105\n"
        "        scaler.update()\n"
        "    for x, y in loader:\n"
        "        forward_backward(x, y)\n"
        "        weight_update()\n"
        "        optimizer.zero_grad()\n",
        # a helper handed the scaler and the optimizer by its caller, which scaled the backward
        "import torch\n"
        "def clip_and_step(scaler, optimizer, model):\n"
        "    scaler.unscale_(optimizer)\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "    optimizer.step()  # expect: TL105\n"
        "    scaler.update()\n"
        "def main(model, loss):\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    scaler.scale(loss).backward()\n"
        "    clip_and_step(scaler, opt, model)\n",
        # an object's method scales the backward pass with the object's own scaler; the
        # loop then steps the optimizer plainly
        "import torch\n"
        "class AmpStepper:\n"
        "    def __init__(self):\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "    def backward(self, loss):\n"
        "        self.scaler.scale(loss).backward()\n"
        "    def step(self, optimizer):\n"
        "        self.scaler.step(optimizer)\n"
        "        self.scaler.update()\n"
        "def train(model, loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    amp = AmpStepper()\n"
        "    for x in loader:\n"
        "        amp.backward(model(x).mean())\n"
        "        optimizer.step()  # expect: TL105\n"
        "        optimizer.zero_grad()\n",
        # only the clip is conditional (`... and clip_grad_norm_(...)`), not the plain step after `unscale_`
        "import torch\n"
        "def train(model, opt, loader, clip):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    for x in loader:\n"
        "        opt.zero_grad()\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.unscale_(opt)\n"
        "        clip and torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "        opt.step()  # expect: TL105\n"
        "        scaler.update()\n",
        # a step in the test of a conditional expression always runs: it is no arm
        "import torch\n"
        "def train(model, opt, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    for x in loader:\n"
        "        opt.zero_grad()\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.unscale_(opt)\n"
        "        print('stepped') if opt.step() is None else None  # expect: TL105\n"
        "        scaler.update()\n",
    )
    good = (
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)\n"
        "for x, y in loader:\n"
        "    scaler.scale(criterion(model(x), y)).backward()\n"
        "    scaler.step(optimizer)\n"
        "    scaler.update()\n"
        "    optimizer.zero_grad()\n",
        # the chapter's template: the plain step belongs to the bf16/fp32 path
        "import torch\n"
        "def train_one_epoch(model, loader, criterion, optimizer, scaler=None):\n"
        "    for x, y in loader:\n"
        "        loss = criterion(model(x), y)\n"
        "        if scaler is not None:\n"
        "            scaler.scale(loss).backward()\n"
        "            scaler.unscale_(optimizer)\n"
        "            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "            scaler.step(optimizer)\n"
        "            scaler.update()\n"
        "        else:\n"
        "            loss.backward()\n"
        "            optimizer.step()\n",
        # the same flag chooses the backward and the step
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x, y in loader:\n"
        "    loss = criterion(model(x), y)\n"
        "    if use_amp:\n"
        "        scaler.scale(loss).backward()\n"
        "    else:\n"
        "        loss.backward()\n"
        "    if use_amp:\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n"
        "    else:\n"
        "        opt.step()\n",
        # the scheduler steps after the scaler stepped the optimizer
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "sched = torch.optim.lr_scheduler.StepLR(opt, 30)\n"
        "scaler.scale(loss).backward()\n"
        "scaler.step(opt)\n"
        "scaler.update()\n"
        "sched.step()\n",
        # gradients unscaled and checked by hand before a plain step
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "scaler.scale(loss).backward()\n"
        "scaler.unscale_(opt)\n"
        "norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "if torch.isfinite(norm):\n"
        "    opt.step()\n"
        "scaler.update()\n",
        "import torch\n"
        "def train(model, loader, opt):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).sum()).backward()\n"
        "        scaler.unscale_(opt)\n"
        "        finite = True\n"
        "        for p in model.parameters():\n"
        "            if p.grad is not None and not torch.isfinite(p.grad).all():\n"
        "                finite = False\n"
        "        if not finite:\n"
        "            opt.zero_grad()\n"
        "            continue\n"
        "        opt.step()\n"
        "        scaler.update()\n",
        "import torch\n"
        "def train(model, loader, opt):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).sum()).backward()\n"
        "        scaler.unscale_(opt)\n"
        "        found_inf = sum(v.item() for v in scaler._found_inf_per_device(opt).values())\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "        if found_inf:\n"
        "            print('skipping a step')\n"
        "        else:\n"
        "            opt.step()\n"
        "        scaler.update()\n",
        # a GAN: only the generator's loss is scaled
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "opt_g = torch.optim.Adam(gen.parameters())\n"
        "opt_d = torch.optim.Adam(disc.parameters())\n"
        "for real in loader:\n"
        "    scaler.scale(loss_g).backward()\n"
        "    scaler.step(opt_g)\n"
        "    scaler.update()\n"
        "    loss_d.backward()\n"
        "    opt_d.step()\n",
        # a scaler switched off passes the loss through unchanged
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda', enabled=False)\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "scaler.scale(loss).backward()\n"
        "opt.step()\n",
        # a wrapper whose step() goes through the scaler, handed in (its class in the file)
        "import torch\n"
        "class AmpOptimizer:\n"
        "    def __init__(self, optimizer, scaler):\n"
        "        self.optimizer, self.scaler = optimizer, scaler\n"
        "    def step(self):\n"
        "        self.scaler.step(self.optimizer)\n"
        "        self.scaler.update()\n"
        "    def zero_grad(self):\n"
        "        self.optimizer.zero_grad()\n"
        "def train(model, loader, optim, scaler):\n"
        "    for x, y in loader:\n"
        "        optim.zero_grad()\n"
        "        with torch.autocast('cuda'):\n"
        "            loss = criterion(model(x), y)\n"
        "        scaler.scale(loss).backward()\n"
        "        optim.step()\n"
        "def main(model, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    train(model, loader, AmpOptimizer(torch.optim.SGD(model.parameters(), lr=0.1), scaler), scaler)\n",
        # the closure steps the method's `self.optimizer` through its `self.scaler`
        "import torch\n"
        "class Trainer:\n"
        "    def fit(self, model, optimizer, loader):\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "        self.optimizer = optimizer\n"
        "        def run_epoch():\n"
        "            for x, y in loader:\n"
        "                self.optimizer.zero_grad()\n"
        "                self.scaler.scale(model(x, y)).backward()\n"
        "                self.scaler.step(self.optimizer)\n"
        "                self.scaler.update()\n"
        "        run_epoch()\n",
        # a class of the file with a step() that steps no optimizer (a warm-up that only sets the rate)
        "import torch\n"
        "class Warmup:\n"
        "    def __init__(self, optimizer, steps):\n"
        "        self.optimizer, self.steps, self.count = optimizer, steps, 0\n"
        "    def step(self):\n"
        "        self.count += 1\n"
        "        for group in self.optimizer.param_groups:\n"
        "            group['lr'] = min(1.0, self.count / self.steps) * 1e-3\n"
        "def train(model, loader):\n"
        "    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)\n"
        "    warmup = Warmup(optimizer, 500)\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    for x in loader:\n"
        "        optimizer.zero_grad()\n"
        "        with torch.autocast('cuda'):\n"
        "            loss = model(x).mean()\n"
        "        scaler.scale(loss).backward()\n"
        "        warmup.step()\n"
        "        scaler.step(optimizer)\n"
        "        scaler.update()\n",
        # stepped through the scaler, then plainly after a backward of its own (a second,
        # float32 phase) or as another optimizer: no gradients are applied twice
        "import torch\n"
        "def train(model, head, loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    head_opt = torch.optim.SGD(head.parameters(), lr=0.1)\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    for x in loader:\n"
        "        optimizer.zero_grad()\n"
        "        with torch.autocast('cuda'):\n"
        "            loss = model(x).mean()\n"
        "        scaler.scale(loss).backward()\n"
        "        scaler.step(optimizer)\n"
        "        scaler.update()\n"
        "        head_opt.step()\n"
        "        optimizer.zero_grad()\n"
        "        model(x).pow(2).mean().backward()\n"
        "        optimizer.step()\n",
        # unscaled in a helper of its own, then stepped through the scaler or after a check
        "import torch\n"
        "def clip_and_step(scaler, optimizer, model):\n"
        "    scaler.unscale_(optimizer)\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "    scaler.step(optimizer)\n"
        "    scaler.update()\n"
        "def checked_step(scaler, optimizer, model):\n"
        "    scaler.unscale_(optimizer)\n"
        "    if all(torch.isfinite(p.grad).all() for p in model.parameters() if p.grad is not None):\n"
        "        optimizer.step()\n"
        "    scaler.update()\n"
        "def main(model, loss):\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    scaler.scale(loss).backward()\n"
        "    clip_and_step(scaler, opt, model)\n"
        "    scaler.scale(loss).backward()\n"
        "    checked_step(scaler, opt, model)\n",
        # two optimizers, each stepped through the scaler; a second one unscaled and
        # stepped through it after the first
        "import torch\n"
        "def train(model, loader, loss_fn):\n"
        "    dense_opt = torch.optim.SGD(model.top.parameters(), lr=0.1)\n"
        "    sparse_opt = torch.optim.SGD(model.emb.parameters(), lr=0.1)\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    for x, y in loader:\n"
        "        with torch.autocast('cuda'):\n"
        "            loss = loss_fn(model(x), y)\n"
        "        scaler.scale(loss).backward()\n"
        "        scaler.step(dense_opt)\n"
        "        scaler.unscale_(sparse_opt)\n"
        "        torch.nn.utils.clip_grad_norm_(model.emb.parameters(), 1.0)\n"
        "        scaler.step(sparse_opt)\n"
        "        scaler.update()\n"
        "        model.zero_grad()\n",
        # another optimizer's plain step after its own unscale_ under the float32 flag only
        "import torch\n"
        "def update(scaler, optimizer, use_amp):\n"
        "    if use_amp:\n"
        "        scaler.unscale_(optimizer)\n"
        "        scaler.step(optimizer)\n"
        "        scaler.update()\n"
        "    else:\n"
        "        optimizer.step()\n",
        # the same object steps through its scaler; another optimizer's plain step follows
        # a backward pass of its own
        "import torch\n"
        "class AmpStepper:\n"
        "    def __init__(self):\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "    def backward(self, loss):\n"
        "        self.scaler.scale(loss).backward()\n"
        "    def step(self, optimizer):\n"
        "        self.scaler.step(optimizer)\n"
        "        self.scaler.update()\n"
        "def train(model, head, loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    head_opt = torch.optim.SGD(head.parameters(), lr=0.1)\n"
        "    amp = AmpStepper()\n"
        "    for x in loader:\n"
        "        amp.backward(model(x).mean())\n"
        "        amp.step(optimizer)\n"
        "        optimizer.zero_grad()\n"
        "        head(x).mean().backward()\n"
        "        head_opt.step()\n"
        "        head_opt.zero_grad()\n",
        # an `if` on the step's line that leaves the iteration first, as one on lines of its own
        "import torch\n"
        "def train(model, loader, opt, grads_diverged):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    for x in loader:\n"
        "        scaler.scale(model(x).sum()).backward()\n"
        "        scaler.unscale_(opt)\n"
        "        if grads_diverged(model): continue\n"
        "        opt.step()\n"
        "        scaler.update()\n",
        # the two arms of a conditional expression are alternatives: one run takes one of them
        "import torch\n"
        "def train(model, opt, loader, amp):\n"
        "    scaler = torch.amp.GradScaler('cuda', enabled=amp)\n"
        "    for x in loader:\n"
        "        opt.zero_grad()\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.step(opt) if amp else opt.step()\n"
        "        scaler.update()\n",
        # a plain step after `unscale_` under a test written as `and` (`finite and opt.step()`)
        "import torch\n"
        "def train(model, opt, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    for x in loader:\n"
        "        opt.zero_grad()\n"
        "        scaler.scale(model(x).mean()).backward()\n"
        "        scaler.unscale_(opt)\n"
        "        grads_ok = all(p.grad is not None for p in model.parameters())\n"
        "        grads_ok and opt.step()\n"
        "        scaler.update()\n",
        # what no statement of the file defines, cleared and stepped beside the scaler's own step:
        # a learner stepped with the batch, an agent: neither is known to be an optimizer
        "import torch\n"
        "def fit(loader, scaler):\n"
        "    for x in loader:\n"
        "        with torch.autocast('cuda'):\n"
        "            loss = net(x)\n"
        "        scaler.scale(loss).backward()\n"
        "        learner.zero_grad()\n"
        "        learner.step(x)\n"
        "        agent.zero_grad()\n"
        "        agent.step()\n"
        "        scaler.step(optimizer)\n"
        "        scaler.update()\n"
        "        optimizer.zero_grad()\n",
    )

    def finish(self) -> None:
        self._bypassing: dict[cst.Call, set[Binding | _Unscaled]] = {}
        self._written: dict[Binding, set[str]] = {}  # each scaler as the scaled backward passes write it
        self._twice: dict[cst.Call, set[_Stepped]] = {}  # plain steps after the scaler stepped them
        self._scaling_calls = self._scaled_backward_calls()
        scaling = self._scaling_calls

        def is_event(node: cst.CSTNode) -> bool:
            return _is_event(node) or node in scaling

        for body in code_bodies(self.ctx):
            Flow(self.ctx, self._transfer, loop_back=lambda facts: frozenset(), events=is_event).run_if_events(body)
        for step, facts in self._bypassing.items():
            scalers = {fact.scaler if type(fact) is _Unscaled else fact for fact in facts}
            if self._other_branch_steps_through(step, scalers):  # type: ignore[arg-type]
                continue
            if any(type(fact) is not _Unscaled for fact in facts):
                self.report(step, self._named(_BYPASSING, step, scalers))
            elif not all(self._checked_between(fact.call, step) for fact in facts):  # type: ignore[union-attr]
                self.report(step, self._named(_UNCHECKED, step, scalers))
        for step, stepped in self._twice.items():
            scalers = {fact.scaler for fact in stepped}
            if step in self._bypassing or self._other_branch_steps_through(step, scalers):  # type: ignore[arg-type]
                continue
            self.report(step, self._named(_TWICE, step, scalers))

    def _named(self, template: str, step: cst.Call, scalers: set[Binding]) -> str:
        """`template` naming the optimizer stepped and the scaler as the code does
        (`opt_g.step()`, `amp_scaler.step(opt_g)`); `scaler` where several reach the step,
        or one is written in several ways."""
        written = self._written.get(next(iter(scalers)), set()) if len(scalers) == 1 else set()
        scaler = next(iter(written)) if len(written) == 1 else "scaler"
        return template.format(optimizer=self.ctx.code(step.func.value), scaler=scaler)  # type: ignore[attr-defined]

    def _scaled_backward_calls(self) -> dict[cst.CSTNode, cst.BaseExpression]:
        """Calls of another module's function that runs `scaler.scale(loss).backward()` on
        the scaler it is handed (`backward(scaler, loss)` of utils.py), with the
        argument that hands it: its summary says that argument is a GradScaler."""
        found: dict[cst.CSTNode, cst.BaseExpression] = {}
        self._objects: dict[Binding, str] = {}  # objects that stand for their own scaler (below)
        for call in self.ctx.nodes_of(cst.Call):
            summary = self.ctx.summaries.of_unwalked_call(call)
            if summary is None or not summary.scales_backward:
                continue
            held = self._held_scaler(call, summary)  # type: ignore[arg-type]
            if held is not None:
                found[call] = held
                continue
            if self.ctx.summaries.of_external_call(call) is None:  # type: ignore[arg-type]
                continue
            scalers = [arg.value for slot, arg in argument_slots(call)  # type: ignore[arg-type]
                       if summary.slot(slot) in summary.scales_backward]
            if len(scalers) == 1:
                found[call] = scalers[0]
        return found

    def _held_scaler(self, call: cst.Call, summary: Summary) -> cst.BaseExpression | None:
        """The object a method of a class of the project is called on (`amp.backward(loss)`
        of `amp = AmpStepper()`) where the method runs `self.scaler.scale(loss).backward()`
        on the object's own scaler and neither unscales, steps nor updates: the object
        stands for its scaler until a method of it that does (see `_transfer`). Not where
        the file reaches the object's scaler itself (`amp.scaler.step(opt)`), nor for an
        object that wraps the optimizers the file steps (see `scaler_holder`,
        `manages_optimizers`)."""
        owned = [a for a in summary.scales_backward if a.startswith("self.")]
        if len(owned) != 1 or summary.does(STEP) or summary.does(UNSCALE) or summary.does(SCALER_UPDATE):
            return None
        obj = scaler_holder(self.ctx, call, ("step", "unscale_", "update"))
        if obj is None or manages_optimizers(self.ctx, obj):
            return None  # accelerate's `accelerator.prepare(optimizer)`: its steps may go through its scaler
        self._objects.setdefault(self.ctx.receivers.binding(obj), f"{self.ctx.code(obj)}.{owned[0][len('self.'):]}")  # type: ignore[arg-type]
        return obj

    def _transfer(self, facts: Facts, node: cst.CSTNode) -> Facts:
        receivers = self.ctx.receivers
        if facts and self._objects and type(node) is cst.Call and type(node.func) is cst.Attribute:
            held = receivers.binding(node.func.value)
            summary = self.ctx.summaries.of_unwalked_call(node) if held in self._objects else None
            if summary is not None and (summary.does(STEP) or summary.does(UNSCALE) or summary.does(SCALER_UPDATE)):
                # `amp.step(opt)`: the object's own method unscales, steps or updates its scaler
                return frozenset(fact for fact in facts if fact != held and not (
                    type(fact) in (_Unscaled, _Stepped) and fact.scaler == held))
        handed = self._scaling_calls.get(node)
        if handed is not None or method_call(node, "backward", "zero_grad") is not None:
            # new gradients, or none: what the scaler stepped is not applied again
            facts = frozenset(fact for fact in facts if type(fact) is not _Stepped)
        if handed is not None:
            binding = receivers.binding(handed)
            if binding is not None and not scaler_switched_off(self.ctx, binding):
                self._written.setdefault(binding, set()).add(self._objects.get(binding, self.ctx.code(handed)))
                return facts | {binding}
            return facts
        scaler = scaled_backward_scaler(node)
        if scaler is not None and receivers.is_kind(scaler, GRAD_SCALER):
            binding = receivers.binding(scaler)
            if binding is not None and not scaler_switched_off(self.ctx, binding):
                self._written.setdefault(binding, set()).add(self.ctx.code(scaler))
                return facts | {binding}
            return facts
        target = method_call(node, "step", "unscale_")
        if target is None:
            return facts
        if receivers.is_kind(target, GRAD_SCALER):
            binding = receivers.binding(target)
            kept = frozenset(fact for fact in facts if fact != binding and not (
                type(fact) is _Unscaled and fact.scaler == binding))
            if method_call(node, "unscale_") is not None:
                if binding in facts:
                    return kept | {_Unscaled(binding, node)}  # type: ignore[arg-type]
                # `unscale_` itself says the optimizer's gradients were scaled: by a backward
                # of another function (the caller's, a sibling closure's), or one the scaler
                # already stepped another optimizer after
                unscaled = receivers.binding(node.args[0].value) if node.args else None  # type: ignore[attr-defined]
                if (binding is not None and unscaled is not None
                        and not scaler_switched_off(self.ctx, binding)):  # type: ignore[arg-type]
                    return kept | {_Unscaled(binding, node, unscaled)}  # type: ignore[arg-type]
                return kept
            stepped = receivers.binding(node.args[0].value) if node.args else None  # type: ignore[attr-defined]
            scaled = any(fact == binding or (type(fact) is _Unscaled and fact.scaler == binding) for fact in facts)
            if scaled and stepped is not None and binding is not None:
                return kept | {_Stepped(binding, stepped, node)}  # type: ignore[arg-type]
            return kept
        if method_call(node, "step") is None:
            return facts
        twice = {fact for fact in facts if type(fact) is _Stepped and fact.optimizer == receivers.binding(target)}
        stepped_binding = receivers.binding(target)
        plain = {fact for fact in facts if type(fact) is not _Stepped and not (
            type(fact) is _Unscaled and fact.optimizer is not None and fact.optimizer != stepped_binding)}
        if (plain or twice) and self._plain_optimizer(node, target):
            if plain:
                self._bypassing.setdefault(node, set()).update(plain)  # type: ignore[arg-type]
            if twice:
                self._twice.setdefault(node, set()).update(twice)  # type: ignore[arg-type]
        return facts

    def _plain_optimizer(self, step: cst.Call, target: cst.BaseExpression) -> bool:
        """`target` is a torch optimizer: built from one, or known by being stepped and
        cleared, when its `step()` is no code of the project, and, for one known only by
        its use, when the file defines no class with a `step()` it could be an instance
        of; or a wrapper of the project whose `step()` steps the optimizer it holds with
        no GradScaler (a Noam schedule's `self._optim.step()`; not one whose `step()` is
        `scaler.step(self.optimizer)`, nor one that back-propagates by itself)."""
        if self.ctx.receivers.is_kind(target, OPTIMIZER):
            return True
        summary = self.ctx.summaries.of_unwalked_call(step)
        if summary is not None:
            return summary.does(STEP) and not summary.does(SCALER_STEP) and not summary.does(BACKWARD)
        if not is_optimizer(self.ctx, target):
            return False
        return self.ctx.local_callee(step) is None and not self.ctx.shared(_defines_step_methods)

    def _other_branch_steps_through(self, step: cst.Call, scalers: set[Binding]) -> bool:
        """A plain step in one branch of an `if` (or arm of `a if amp else b`) whose
        other branch calls `scaler.step`: the two are alternatives (AMP and float32 paths). Not
        when the step's own branch scales the backward itself: that branch is
        no float32 path (an accumulation branch beside a plain one)."""
        receivers = self.ctx.receivers
        child: cst.CSTNode = step
        for ancestor in self.ctx.ancestors(step):
            if type(ancestor) in (cst.FunctionDef, cst.ClassDef):
                return False
            arm, child = child, ancestor
            if type(ancestor) not in (cst.If, cst.IfExp):
                continue
            if any(self._scales_with(node, scalers) for node in iter_nodes(arm)):
                return False
            for node in iter_nodes(ancestor):
                target = method_call(node, "step")
                if target is not None and receivers.binding(target) in scalers:
                    return True
        return False


    def _checked_between(self, unscale: cst.Call, step: cst.Call) -> bool:
        """Code between `scaler.unscale_(opt)` and a plain `opt.step()` that may test
        the gradients for inf/NaN: the step in an `if` the unscale_ is not in (or in an arm of
        `... if ... else ...`, the right operand of `and`/`or`), an `if`
        that leaves the iteration or the function, or a call or a name that speaks of
        finiteness (see `_CHECK_WORDS`)."""
        around_unscale = {id(ancestor) for ancestor in self.ctx.ancestors(unscale)}
        child: cst.CSTNode = step
        for ancestor in self.ctx.ancestors(step):
            if type(ancestor) in (cst.FunctionDef, cst.ClassDef, cst.Module):
                break
            # also a conditional expression's arm or the right operand of `and`/`or` (`finite and opt.step()`)
            conditional = type(ancestor) is cst.If or (
                type(ancestor) is cst.IfExp and child is not ancestor.test) or (  # type: ignore[attr-defined]
                type(ancestor) is cst.BooleanOperation and child is ancestor.right)  # type: ignore[attr-defined]
            if conditional and id(ancestor) not in around_unscale:
                return True
            child = ancestor
        nodes = self.ctx.nodes()
        for node in nodes[self.ctx.subtree_end(unscale) + 1:self.ctx.order_index(step)]:
            if type(node) is cst.Name and _CHECK_WORDS.search(node.value):
                return True
            if type(node) is cst.If and leaves_block(node):
                return True
        return False

    def _scales_with(self, node: cst.CSTNode, scalers: set[Binding]) -> bool:
        """`node` is `scaler.scale(loss).backward()` of one of `scalers`."""
        scaler = scaled_backward_scaler(node)
        return scaler is not None and self.ctx.receivers.binding(scaler) in scalers


def _is_event(node: cst.CSTNode) -> bool:
    """Every node `StepBypassesScaler._transfer` can react to."""
    return method_call(node, "backward", "step", "unscale_", "zero_grad") is not None


def _defines_step_methods(ctx: FileContext) -> bool:
    """A class of the file has a `step()` method (an optimizer wrapper's)."""
    return any(node.name.value == "step" and type(ctx.parent(ctx.parent(node))) is cst.ClassDef  # type: ignore[attr-defined]
               for node in ctx.nodes_of(cst.FunctionDef))

