import libcst as cst

from trainlint.analysis.flow import Facts
from trainlint.analysis.loops import clears_grads, is_backward, optimizer_step, run_each_iteration, steps_another_after
from trainlint.analysis.training import is_clip_call, measures_only, method_call
from trainlint.rule import Rule
from trainlint.summaries import BACKWARD, CLIP, STEP, ZERO_GRAD, Summary

_STEPPED = "stepped"
_STEP = "step:"  # and which optimizer did, as written


class ClipAfterStep(Rule):
    """
    ## What it does
    Flags gradient clipping (`clip_grad_norm_`, `clip_grad_value_`, under any
    alias) reached after the optimizer step (`opt.step()` or
    `scaler.step(opt)`) in the same iteration, with no new `backward()` in
    between, along some path through the code.

    ## Why is this bad?
    The step has already applied the gradients; clipping them afterwards
    changes values that nothing reads before they are cleared or overwritten.
    The run trains unclipped while the code says it clips, and exploding
    gradients go through.

    ## Example
    ```python
    import torch
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        optimizer.zero_grad()
        criterion(model(x), y).backward()
        optimizer.step()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    ```

    ## Use instead
    ```python
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    ```

    ## Fix safety
    No fix: under a GradScaler the clip must also move after `unscale_`,
    which only the author can place.

    ## Limitations
    A clip bound by `functools.partial` (`clip = partial(clip_grad_value_,
    clip_value=1.0)`) counts where it is called. A clip with an infinite
    threshold (`max_norm=float("inf")`, also in the partial) only measures
    the norm and is not flagged. Steps through an optimizer that cannot be
    resolved are not followed. A clip that another optimizer's step follows in
    the same iteration, with no backward pass or clear in between (not one
    of those that stepped before it), is not flagged: it may be meant for that optimizer (an encoder and a decoder, each
    clipped before its own step), even where it clips the other's parameters. Functions of the file are followed into their
    bodies; a function of another module of the project, and a method of an
    object of a class of the file (`optim.step_and_update_lr()` of a wrapper
    around the optimizer), is read by what it
    does, in order (`clip_gradients(model)` of `utils.py` called after
    `opt.step()` is reported at the call, and so is a helper called in the
    loop that steps and then clips, when its module cannot tell that what it
    steps is an optimizer: where it can, the clip is reported there, once; a
    helper that back-propagates, clips and steps by itself leaves the caller
    stepped).
    """

    code = "TL403"
    name = "clip-after-step"
    severity = "error"
    message = "gradients are clipped after the optimizer step: the clip changes nothing; clip before `step()`"
    triggers = ("clip_grad",)
    bad = (
        # an optimizer held by an attribute of an attribute, stepped and cleared in the file
        "import torch\n"
        "class DQN:\n"
        "    def train(self, batches):\n"
        "        for obs, target in batches:\n"
        "            self.policy.optimizer.zero_grad()\n"
        "            ((self.q_net(obs) - target) ** 2).mean().backward()\n"
        "            self.policy.optimizer.step()\n"
        "            torch.nn.utils.clip_grad_norm_(self.policy.parameters(), 10.0)  # expect: TL403\n",
        # the clip after a loop that steps each optimizer of the step
        "import torch\n"
        "optimizers = [torch.optim.AdamW(head.parameters()), torch.optim.SGD(body.parameters(), lr=0.1)]\n"
        "for x in loader:\n"
        "    model(x).sum().backward()\n"
        "    for opt in optimizers:\n"
        "        opt.step()\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL403\n"
        "    for opt in optimizers:\n"
        "        opt.zero_grad()\n",
        "import torch\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    criterion(model(x), y).backward()\n"
        "    optimizer.step()\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL403\n",
        "from torch.nn.utils import clip_grad_value_ as clip\n"
        "import torch\n"
        "def train_one_epoch(model, loader, optimizer, scaler):\n"
        "    for i, (x, y) in enumerate(loader):\n"
        "        optimizer.zero_grad()\n"
        "        scaler.scale(model(x, y)).backward()\n"
        "        scaler.step(optimizer)\n"
        "        scaler.update()\n"
        "        clip(model.parameters(), 0.5)  # expect: TL403\n"
        "scaler = torch.amp.GradScaler('cuda')\n",
        # the step is in a helper called before the clip
        "import torch.nn as nn\n"
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.opt = torch.optim.AdamW(model.parameters())\n"
        "    def apply(self):\n"
        "        self.opt.step()\n"
        "    def fit(self, loader):\n"
        "        for batch in loader:\n"
        "            self.opt.zero_grad()\n"
        "            self.model(batch).backward()\n"
        "            self.apply()\n"
        "            if self.max_norm:\n"
        "                nn.utils.clip_grad_norm_(self.model.parameters(), self.max_norm)  # expect: TL403\n",
        # gradient accumulation: the clip follows the step on the stepping micro-step
        "import torch\n"
        "opt = torch.optim.AdamW(model.parameters())\n"
        "for i, (x, y) in enumerate(loader):\n"
        "    (criterion(model(x), y) / accum).backward()\n"
        "    if (i + 1) % accum == 0:\n"
        "        opt.step()\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL403\n"
        "        opt.zero_grad()\n",
        # both optimizers stepped: the clip comes after every update
        "from torch import nn\n"
        "def train(enc, dec, loader, opt_enc, opt_dec):\n"
        "    for x in loader:\n"
        "        opt_enc.zero_grad()\n"
        "        opt_dec.zero_grad()\n"
        "        (dec(enc(x)) - x).pow(2).mean().backward()\n"
        "        opt_enc.step()\n"
        "        opt_dec.step()\n"
        "        nn.utils.clip_grad_norm_(dec.parameters(), 1.0)  # expect: TL403\n",
        # a GAN: the discriminator clipped after its step, before the generator's own pass
        "from torch.nn.utils import clip_grad_norm_\n"
        "def train(D, G, loader, opt_d, opt_g):\n"
        "    for x in loader:\n"
        "        opt_d.zero_grad()\n"
        "        D(x).mean().backward()\n"
        "        opt_d.step()\n"
        "        clip_grad_norm_(D.parameters(), 1.0)  # expect: TL403\n"
        "        opt_g.zero_grad()\n"
        "        D(G(x)).mean().backward()\n"
        "        opt_g.step()\n",
        # a clip bound by `functools.partial`
        "from functools import partial\n"
        "\n"
        "import torch\n"
        "\n"
        "clip = partial(torch.nn.utils.clip_grad_value_, clip_value=1.0)\n"
        "\n"
        "\n"
        "def train(model, loader, opt):\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "        opt.step()\n"
        "        clip(model.parameters())  # expect: TL403\n",
        # the step runs in a method of a wrapper class of the file, the clip after it
        "import torch\n"
        "class ScheduledOptim:\n"
        "    def __init__(self, model, lr):\n"
        "        self._optimizer = torch.optim.Adam(model.parameters(), lr=lr)\n"
        "    def step_and_update_lr(self):\n"
        "        self._optimizer.step()\n"
        "    def zero_grad(self):\n"
        "        self._optimizer.zero_grad()\n"
        "def finetune(model, loader, loss_fn):\n"
        "    optim = ScheduledOptim(model, 1e-3)\n"
        "    for batch in loader:\n"
        "        optim.zero_grad()\n"
        "        loss_fn(model(batch)).backward()\n"
        "        optim.step_and_update_lr()\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL403\n",
        # a wrapper's method that steps and then clips, called after the caller's step: one finding, in it
        "import torch\n"
        "class Stepper:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "        self._optimizer = torch.optim.Adam(model.parameters())\n"
        "    def step_and_clip(self):\n"
        "        self._optimizer.step()\n"
        "        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)  # expect: TL403\n"
        "def train(model, loader, opt):\n"
        "    stepper = Stepper(model)\n"
        "    for batch in loader:\n"
        "        opt.zero_grad()\n"
        "        model(batch).sum().backward()\n"
        "        opt.step()\n"
        "        stepper.step_and_clip()\n",
        # after a plain step that bypassed the scaler: reported here only (not as TL101 too)
        "import torch\n"
        "def train(model, optimizer, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    for x in loader:\n"
        "        optimizer.zero_grad()\n"
        "        with torch.autocast('cuda'):\n"
        "            loss = model(x).mean()\n"
        "        scaler.scale(loss).backward()\n"
        "        optimizer.step()\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL403\n",
        # clips written as an arm of an expression, on the last batch or when asked, after the step
        "import torch\n"
        "def train(model, loader, optimizer, clip):\n"
        "    for i, (x, y) in enumerate(loader):\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "        optimizer.step()\n"
        "        last = i == len(loader) - 1\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0) if last else None  # expect: TL403\n"
        "        clip and torch.nn.utils.clip_grad_value_(model.parameters(), 0.5)  # expect: TL403\n",
    )
    good = (
        # each optimizer's gradients clipped before it steps
        "import torch\n"
        "optimizers = [torch.optim.AdamW(head.parameters()), torch.optim.SGD(body.parameters(), lr=0.1)]\n"
        "for x in loader:\n"
        "    model(x).sum().backward()\n"
        "    for opt in optimizers:\n"
        "        torch.nn.utils.clip_grad_norm_([p for g in opt.param_groups for p in g['params']], 1.0)\n"
        "        opt.step()\n"
        "        opt.zero_grad()\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n",
        # the fp32 branch's clip follows the AMP branch's step in the text only
        "import torch\n"
        "def train_one_epoch(model, loader, criterion, optimizer, scaler=None):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        loss = criterion(model(x), y)\n"
        "        if scaler is not None:\n"
        "            scaler.scale(loss).backward()\n"
        "            scaler.unscale_(optimizer)\n"
        "            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\n"
        "            scaler.step(optimizer)\n"
        "            scaler.update()\n"
        "        else:\n"
        "            loss.backward()\n"
        "            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\n"
        "            optimizer.step()\n"
        "optimizer = torch.optim.AdamW(model.parameters())\n",
        # the step of the previous iteration does not precede this clip
        "import torch\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    criterion(model(x), y).backward()\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "    optimizer.step()\n"
        "    # torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n",
        # measuring the gradient norm after the step, with an infinite threshold
        "import math, torch\n"
        "opt = torch.optim.Adam(model.parameters())\n"
        "for x, y in loader:\n"
        "    opt.zero_grad()\n"
        "    criterion(model(x), y).backward()\n"
        "    opt.step()\n"
        "    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), float('inf'))\n"
        "    norm2 = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=math.inf)\n",
        # two optimizers: a new backward comes between the first step and the clip
        "import torch\n"
        "opt_d = torch.optim.Adam(disc.parameters())\n"
        "opt_g = torch.optim.Adam(gen.parameters())\n"
        "for real in loader:\n"
        "    opt_d.zero_grad()\n"
        "    d_loss(disc, gen, real).backward()\n"
        "    opt_d.step()\n"
        "    opt_g.zero_grad()\n"
        "    g_loss(disc, gen, real).backward()\n"
        "    torch.nn.utils.clip_grad_norm_(gen.parameters(), 5.0)\n"
        "    opt_g.step()\n",
        # a local function that only shares the name
        "import torch\n"
        "def clip_grad_norm_(params, value):\n"
        "    return value\n"
        "opt = torch.optim.Adam(model.parameters())\n"
        "loss.backward()\n"
        "opt.step()\n"
        "clip_grad_norm_(model.parameters(), 1.0)\n",
        # each network clipped right before its own optimizer steps
        "from torch import nn\n"
        "def train(enc, dec, loader, opt_enc, opt_dec):\n"
        "    for x in loader:\n"
        "        opt_enc.zero_grad()\n"
        "        opt_dec.zero_grad()\n"
        "        (dec(enc(x)) - x).pow(2).mean().backward()\n"
        "        nn.utils.clip_grad_norm_(enc.parameters(), 1.0)\n"
        "        opt_enc.step()\n"
        "        nn.utils.clip_grad_norm_(dec.parameters(), 1.0)\n"
        "        opt_dec.step()\n",
        # a partial clip before the step; one with an infinite threshold only measures the norm
        "from functools import partial\n"
        "\n"
        "import torch\n"
        "\n"
        "clip = partial(torch.nn.utils.clip_grad_value_, clip_value=1.0)\n"
        "norm_of = partial(torch.nn.utils.clip_grad_norm_, max_norm=float(\"inf\"))\n"
        "\n"
        "\n"
        "def train(model, loader, opt, log):\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "        clip(model.parameters())\n"
        "        opt.step()\n"
        "        log(norm_of(model.parameters()))\n",
        # a wrapper class of the file clips, then clips and steps: in order
        "import torch\n"
        "class Stepper:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "        self._optimizer = torch.optim.Adam(model.parameters())\n"
        "    def clip(self):\n"
        "        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)\n"
        "    def clip_and_step(self):\n"
        "        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)\n"
        "        self._optimizer.step()\n"
        "def train(model, loader):\n"
        "    stepper = Stepper(model)\n"
        "    for batch in loader:\n"
        "        model(batch).sum().backward()\n"
        "        stepper.clip()\n"
        "        stepper.clip_and_step()\n"
        "        model.zero_grad()\n",
        # the same arms before the step
        "import torch\n"
        "def train(model, loader, optimizer, clip):\n"
        "    for i, (x, y) in enumerate(loader):\n"
        "        optimizer.zero_grad()\n"
        "        torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "        last = i == len(loader) - 1\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0) if last else None\n"
        "        clip and torch.nn.utils.clip_grad_value_(model.parameters(), 0.5)\n"
        "        optimizer.step()\n",
    )

    def finish(self) -> None:
        # a call of another module's function may clip, step or back-propagate
        run_each_iteration(self.ctx, self._transfer, events=None if self.ctx.external else self._is_event)

    def _is_event(self, node: cst.CSTNode) -> bool:
        """Every node `_transfer` can react to."""
        summary = self.ctx.summaries.of_unwalked_call(node)
        return (
            method_call(node, "backward", "step") is not None
            or clears_grads(self.ctx, node)
            or is_clip_call(self.ctx, node)
            or (summary is not None and any(summary.does(effect) for effect in (BACKWARD, ZERO_GRAD, STEP, CLIP)))
        )

    def _transfer(self, facts: Facts, node: cst.CSTNode) -> Facts:
        if is_backward(node) or clears_grads(self.ctx, node):
            return frozenset()
        optimizer = optimizer_step(self.ctx, node)
        if optimizer is not None:
            return frozenset({_STEPPED, _STEP + self.ctx.code(optimizer), *(f for f in facts if f.startswith(_STEP))})
        if (_STEPPED in facts and is_clip_call(self.ctx, node) and not measures_only(self.ctx, node)
                and not steps_another_after(self.ctx, node, {f[len(_STEP):] for f in facts if f.startswith(_STEP)})):
            self.report(node)
        # another module's function, or a method of an object of a class of this file
        # (`optim.step_and_update_lr()`), which the walk does not enter
        summary = self.ctx.summaries.of_unwalked_call(node)
        if summary is not None:
            return self._through(facts, node, summary)  # type: ignore[arg-type]
        return facts

    def _through(self, facts: Facts, call: cst.Call, summary: Summary) -> Facts:
        """A function the walk does not enter, by the effects it has, in the order they
        are first reached: its clip follows the caller's step (`clip_gradients(model)`
        after `opt.step()`), reported at the call, or its own (`optimizer_step(opt, model)`
        that steps, then clips), reported at the call only where the function's own
        code cannot tell that what it steps is an optimizer (elsewhere it is reported
        there, once)."""
        stepped_before = stepped = _STEPPED in facts
        own_step = False
        for effect in summary.effects:
            if effect in (BACKWARD, ZERO_GRAD):
                stepped_before = stepped = own_step = False
            elif effect == STEP:
                stepped = own_step = True
            elif effect == CLIP and own_step:  # its own step, then its clip, with nothing between
                if summary.unjudged_steps:
                    self.report(call, _OWN_STEP.format(self.ctx.code(call.func)))
                stepped_before = stepped = own_step = False
            elif effect == CLIP and stepped_before:
                self.report(call, _THROUGH_HELPER.format(self.ctx.code(call.func)))
                stepped_before = False
        return frozenset({_STEPPED}) if stepped else frozenset()


_THROUGH_HELPER = "`{}()` clips gradients after the optimizer step: the clip changes nothing; clip before `step()`"
_OWN_STEP = "`{}()` steps the optimizer, then clips the gradients: the clip changes nothing; clip before `step()`"
