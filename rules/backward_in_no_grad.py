from __future__ import annotations

import libcst as cst

from trainlint.analysis.backward_losses import computed_here, given_slots
from trainlint.analysis.loops import GradMode, function_grad_mode, grad_mode_at, is_backward, lexical_grad_mode
from trainlint.rule import Rule
from trainlint.summaries import needs_through

_ELSEWHERE = ("`{}()` computes a loss and back-propagates it (itself or in a function it calls), and this call "
              "runs it under `no_grad` / `inference_mode`: no graph is recorded and its `backward()` raises at "
              "run time")
_CALLERS = ("`backward()` on a loss computed in `{}()`, which every call in this file runs under `no_grad` / "
            "`inference_mode`: no graph was recorded and this raises at run time")


class BackwardInNoGrad(Rule):
    """
    ## What it does
    Flags `.backward()` on a loss computed with gradients off: inside
    `with torch.no_grad():` / `with torch.inference_mode():` (or
    `torch.set_grad_enabled(False)`), or in a function decorated with them
    (`@torch.no_grad`, `@torch.no_grad()`, `@torch.inference_mode()`, under
    any alias, or a wrapper of the same file built on them; also a context
    held in a variable, `ctx = torch.no_grad()` or a choice between two that
    both disable gradients, then `with ctx:`), unless
    `torch.enable_grad()` re-enables gradients around it. The backward call
    must run there too, and the loss must be computed there: an expression
    evaluated at the call (`criterion(out, y).backward()`,
    `scaler.scale(loss).backward()`), or a variable whose every assignment in
    the function runs with gradients off.

    ## Why is this bad?
    Under `no_grad` the forward pass records no graph, so the loss does not
    require grad and `backward()` raises "element 0 of tensors does not
    require grad and does not have a grad_fn" (under `inference_mode`, an
    error about inference tensors). The training step never runs; often the
    code was moved from an evaluation helper.

    ## Example
    ```python
    import torch
    with torch.no_grad():
        loss = criterion(model(x), y)
        loss.backward()
    ```

    ## Use instead
    ```python
    loss = criterion(model(x), y)
    loss.backward()
    ```

    ## Fix safety
    No fix: which statements belong outside the `no_grad` block is the
    author's decision.

    ## Limitations
    The `with` blocks and decorators of the function holding the call are
    considered, and those around its callers where every call of that
    function in the file runs under them (itself, or through the functions
    that call it: a trainer's `_step()` called only from a `@torch.no_grad()`
    `fit()`), with no grad mode of its own around the loss; not those of
    callers in other modules. A function of another module of the project that
    computes a loss and back-propagates it, itself or in a function it calls (of
    its module or another, a few calls deep: an epoch loop calling a
    `train_step`), with no grad mode of its own around either, is reported at a
    call of it that runs under `no_grad` / `inference_mode`
    (`train_step(model, opt, x, y)` or `run_epoch(model, opt, loader)` inside
    `with torch.no_grad():`), unless its backward, or a call on the way to it,
    lies under an `if` on a parameter (`if train:`, `if not update: return`
    before it) that the call's constant arguments, or the defaults it leaves,
    make skip it; a backward or a call under any other condition (`if
    loss.requires_grad:`, `try:`), or under a grad mode of the function's own
    (`with torch.enable_grad():`), is not followed. A decorator that cannot be
    resolved is assumed not to disable gradients. A context held in a
    variable counts only when every value the file assigns it disables
    gradients and it is no parameter (a caller may hand in another). A loss computed outside the
    block (or received as a parameter, or returned by a helper) is not
    flagged: `backward()` itself runs fine under `no_grad` when the graph was
    recorded with gradients on.
    """

    code = "TL407"
    name = "backward-in-no-grad"
    severity = "error"
    message = (
        "`backward()` on a loss computed under `no_grad` / `inference_mode`: no graph was recorded "
        "and this raises at run time"
    )
    triggers = ("backward",)
    bad = (
        "import torch\n"
        "for x, y in loader:\n"
        "    with torch.no_grad():\n"
        "        loss = criterion(model(x), y)\n"
        "        loss.backward()  # expect: TL407\n"
        "    optimizer.step()\n",
        "import torch as th\n"
        "@th.no_grad()\n"
        "def train_step(model, batch, opt):\n"
        "    loss = model(batch)\n"
        "    loss.backward()  # expect: TL407\n"
        "    opt.step()\n",
        "from torch import inference_mode\n"
        "class Trainer:\n"
        "    @inference_mode()\n"
        "    def step(self, batch):\n"
        "        self.scaler.scale(self.model(batch)).backward()  # expect: TL407\n",
        # bare decorator, and a wrapper of the file around no_grad
        "import functools\n"
        "import torch\n"
        "def frozen(fn):\n"
        "    @functools.wraps(fn)\n"
        "    def run(*args, **kwargs):\n"
        "        with torch.no_grad():\n"
        "            return fn(*args, **kwargs)\n"
        "    return run\n"
        "@torch.no_grad\n"
        "def a(model, x):\n"
        "    loss = model(x).sum()\n"
        "    loss.backward()  # expect: TL407\n"
        "@frozen\n"
        "def b(model, x):\n"
        "    loss = model(x).sum()\n"
        "    loss.backward()  # expect: TL407\n",
        "import torch\n"
        "with torch.set_grad_enabled(False):\n"
        "    criterion(model(x), y).backward()  # expect: TL407\n",
        # the no_grad context held in a variable, or chosen by a flag between two that disable gradients
        "import torch\n"
        "def adapt(encoder, decoder, crit, loader, optimizer, fast=False):\n"
        "    ctx = torch.inference_mode() if fast else torch.no_grad()\n"
        "    for batch in loader:\n"
        "        with ctx:\n"
        "            loss = crit(decoder(encoder(batch['x'])), batch['y'])\n"
        "            loss.backward()  # expect: TL407\n"
        "        optimizer.step()\n"
        "def tune(model, loader, optimizer):\n"
        "    frozen = torch.no_grad()\n"
        "    for x in loader:\n"
        "        with frozen:\n"
        "            model(x).sum().backward()  # expect: TL407\n"
        "        optimizer.step()\n",
        # a training step that every call of it in the file runs under no_grad
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "        self.optimizer = torch.optim.AdamW(model.parameters())\n"
        "    def _step(self, x, y):\n"
        "        loss = torch.nn.functional.cross_entropy(self.model(x), y)\n"
        "        loss.backward()  # expect: TL407\n"
        "        self.optimizer.step()\n"
        "        self.optimizer.zero_grad()\n"
        "    @torch.no_grad()\n"
        "    def fit(self, loader):\n"
        "        for x, y in loader:\n"
        "            self._step(x, y)\n"
        "def step(model, optimizer, x, y):\n"
        "    model(x).sum().backward()  # expect: TL407\n"
        "    optimizer.step()\n"
        "def run(model, optimizer, loader):\n"
        "    for x, y in loader:\n"
        "        step(model, optimizer, x, y)\n"
        "def main(model, optimizer, loader):\n"
        "    with torch.inference_mode():\n"
        "        run(model, optimizer, loader)\n",
        # a step method called on its class, under `no_grad`
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "    def step(self, x, y):\n"
        "        loss = criterion(self.model(x), y)\n"
        "        loss.backward()  # expect: TL407\n"
        "    def fit(self, loader):\n"
        "        for x, y in loader:\n"
        "            with torch.no_grad():\n"
        "                Trainer.step(self, x, y)\n",
    )
    good = (
        # the graph was recorded outside the block: backward() works under no_grad
        "import torch\n"
        "for x, y in loader:\n"
        "    loss = criterion(model(x), y)\n"
        "    with torch.no_grad():\n"
        "        loss.backward()\n"
        "        ema.update(model)\n"
        "@torch.no_grad()\n"
        "def apply(loss, accelerator):\n"
        "    accelerator.backward(loss)\n",
        # `enable_grad` inside `no_grad` records a graph again
        "import torch\n"
        "@torch.no_grad()\n"
        "def refine(model, x, steps):\n"
        "    for _ in range(steps):\n"
        "        with torch.enable_grad():\n"
        "            x = x.detach().requires_grad_()\n"
        "            model(x).sum().backward()\n"
        "        x = x - 0.1 * x.grad\n"
        "    return x\n",
        # no_grad only around the metric, backward outside it
        "import torch\n"
        "for x, y in loader:\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    with torch.no_grad():\n"
        "        acc = (model(x).argmax(1) == y).float().mean()\n"
        "    optimizer.step()\n",
        # an autograd Function's own backward, and a closure defined under no_grad
        "import torch\n"
        "class Scale(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def backward(ctx, grad):\n"
        "        return grad * 2\n"
        "with torch.no_grad():\n"
        "    g = Scale.backward(None, torch.ones(1))\n"
        "    def closure():\n"
        "        loss = model(x)\n"
        "        loss.backward()\n"
        "        return loss\n"
        "optimizer.step(closure)\n",
        # set_grad_enabled on a flag (the train/val phase loop), and a decorator
        # that cannot be resolved
        "import torch\n"
        "from mylib import timed\n"
        "for phase in ['train', 'val']:\n"
        "    with torch.set_grad_enabled(phase == 'train'):\n"
        "        loss = criterion(model(x), y)\n"
        "        if phase == 'train':\n"
        "            loss.backward()\n"
        "@timed\n"
        "def step(loss):\n"
        "    loss.backward()\n",
        # a local `no_grad` that is not torch's, and a comment
        "def no_grad():\n"
        "    return open('log.txt')\n"
        "with no_grad():\n"
        "    loss.backward()\n"
        "# with torch.no_grad(): loss.backward()\n",
        # a context chosen between no_grad and one that keeps gradients, or handed in by the caller
        "import contextlib\n"
        "import torch\n"
        "def run(model, loader, optimizer, train):\n"
        "    ctx = contextlib.nullcontext() if train else torch.no_grad()\n"
        "    for x in loader:\n"
        "        with ctx:\n"
        "            loss = model(x).sum()\n"
        "            if train:\n"
        "                loss.backward()\n"
        "                optimizer.step()\n"
        "def step(model, x, optimizer, ctx=None):\n"
        "    if ctx is None:\n"
        "        ctx = torch.no_grad()\n"
        "    with ctx:\n"
        "        model(x).sum().backward()\n"
        "    optimizer.step()\n",
        # the step re-enables gradients itself, is also called with them on, or is handed its loss
        "import torch\n"
        "def refine(model, x):\n"
        "    with torch.enable_grad():\n"
        "        loss = model(x).sum()\n"
        "    loss.backward()\n"
        "def step(model, optimizer, x):\n"
        "    model(x).sum().backward()\n"
        "    optimizer.step()\n"
        "def apply(loss, optimizer):\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "def main(model, optimizer, loader):\n"
        "    for x in loader:\n"
        "        step(model, optimizer, x)\n"
        "        loss = model(x).sum()\n"
        "        with torch.no_grad():\n"
        "            refine(model, x)\n"
        "            step(model, optimizer, x)\n"
        "            apply(loss, optimizer)\n",
        # the step method called on its class under `no_grad` turns grad back on for its loss
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "    def step(self, x, y):\n"
        "        with torch.enable_grad():\n"
        "            loss = criterion(self.model(x), y)\n"
        "        loss.backward()\n"
        "    def fit(self, loader):\n"
        "        for x, y in loader:\n"
        "            with torch.no_grad():\n"
        "                Trainer.step(self, x, y)\n",
    )

    def finish(self) -> None:
        for node in self.ctx.nodes_of(cst.Call):
            if not is_backward(node):
                if self._runs_backward_without_grad(node):  # type: ignore[arg-type]
                    self.report(node, _ELSEWHERE.format(self.ctx.code(node.func)))  # type: ignore[attr-defined]
                continue
            mode = lexical_grad_mode(self.ctx, node)
            if mode == "off":
                if self._computed_without_graph(node):  # type: ignore[arg-type]
                    self.report(node)
            elif mode is None and self._called_without_grad(node):  # type: ignore[arg-type]
                function = self.ctx.enclosing_function(node)
                self.report(node, _CALLERS.format(function.name.value))  # type: ignore[union-attr]

    def _runs_backward_without_grad(self, call: cst.Call) -> bool:
        """`call` runs, under no_grad / inference_mode (here, or around every call of
        the function holding it), a function of another module that back-propagates a
        tensor it computes itself with no grad mode of its own: its summary's
        `computed_backwards` (also those of the functions it calls), one of which the
        call's constant arguments (or the defaults it leaves) let run
        (`train_step(model, batch)`; not `step(model, batch, train=False)` of a backward
        under `if train:`)."""
        summary = self.ctx.summaries.of_external_call(call)
        if summary is None or not summary.computed_backwards or grad_mode_at(self.ctx, call) != "off":
            return False
        given = given_slots(call, {})
        return any(needs_through(summary, given, needs) == () for needs in summary.computed_backwards)

    def _called_without_grad(self, call: cst.Call) -> bool:
        """The function holding `call`, with no grad mode of its own around it, runs only
        under no_grad / inference_mode: every call of it in the file does, itself or
        through the functions around it (`self._step(x, y)` in a `@torch.no_grad()`
        `fit()`), and the back-propagated tensor is computed in it with no grad mode of
        its own either (see `_computed_without_graph`)."""
        function = self.ctx.enclosing_function(call)
        if function is None or function_grad_mode(self.ctx, function) != "off":
            return False
        return self._computed_without_graph(call, outside=None)

    def _computed_without_graph(self, call: cst.Call, outside: GradMode | None = "off") -> bool:
        """Whether the back-propagated tensor was computed with gradients off: here,
        under the grad mode `outside` set within the function (None: none of its own,
        where the function runs only with gradients off); see `computed_here`."""
        return computed_here(self.ctx, call, outside)
