import functools
from typing import NamedTuple

import libcst as cst

from trainlint.analysis.flow import Facts, Flow
from trainlint.analysis.dataflow import keyword, unpacked
from trainlint.analysis.flowgraph import FlowGraph
from trainlint.analysis.guards import in_try
from trainlint.analysis.literals import string_value
from trainlint.analysis.hook_runs import HookRun, hook_runs, scaling_before
from trainlint.analysis.loops import clears_grads, is_backward, optimizer_step, steps_another_after
from trainlint.analysis.precision import handed_arguments, literal_bool, manages_optimizers, scaler_holder, scaler_owners
from trainlint.analysis.receivers import GRAD_SCALER, Binding
from trainlint.analysis.scopes import argument_slots, assignment_targets, dotted_name, head_name, receiver_method
from trainlint.analysis.training import (
    code_bodies, is_clip_call, method_call, opposite_branches, own_attribute, scaled_backward_scaler,
    simple_statements, statement_of,
)
from trainlint.context import FileContext
from trainlint.rule import Example, Fix, Rule
from trainlint.summaries import BACKWARD, CLIP, SCALER_UPDATE, STEP, UNSCALE, Summary


class _PlainStep(NamedTuple):
    """An optimizer (as written) stepped with a plain `optimizer.step()` while the
    gradients were scaled."""

    optimizer: str


_IN_HOOK = (
    "gradients are clipped while still multiplied by the loss scale: {} after back-propagating through "
    "`{}.scale(loss)`; call `{}.unscale_(optimizer)` before clipping"
)
_IN_HELPER = (
    "`{}()` clips gradients that are still multiplied by the loss scale: "
    "call `{}` before it"
)


def _clips_first(summary: Summary) -> bool:
    """A function that clips gradients before any `unscale_` of its own."""
    order = [event for event in summary.events if event in (CLIP, UNSCALE)]
    return bool(order) and order[0] == CLIP


class ClipBeforeUnscale(Rule):
    """
    ## What it does
    Flags gradient clipping (`clip_grad_norm_`, `clip_grad_value_`, under any
    alias) reached after `scaler.scale(loss).backward()` with no
    `scaler.unscale_(optimizer)` in between, on some path through the code.

    ## Why is this bad?
    Under fp16 mixed precision a `GradScaler` multiplies the loss, and so
    every gradient, by the loss scale (65,536 to start with). Clipping those
    gradients compares the threshold with values tens of thousands of times
    too large: the total norm is always "too big", every step is clipped to a
    tiny update, or the clip does nothing useful at all. `scaler.unscale_`
    divides the gradients back first; `scaler.step` then knows they were
    already unscaled and still skips steps with inf/NaN.

    ## Fix safety
    Safe: inserts `scaler.unscale_(optimizer)` just before the clip, where
    `optimizer` is the one later passed to `scaler.step` in the same function.
    A second `unscale_` before `update()` raises, so the fix is offered only
    when every run of the clip is followed, in the same iteration and with no
    `continue`, `break`, `return`, `raise`, `yield` or `await` in between, by
    `scaler.step(optimizer)` and then `scaler.update()`, with no backward pass
    between the clip and the step (its gradients would reach the step still
    scaled: `step()` unscales only once), and when nothing else may unscale: no other
    `unscale_` call in the file (a helper's, on its own parameter), no function
    of the project that unscales, no code the file cannot see that is handed
    the scaler (or the object holding it: `self.log_grad_norm()` inherited
    from a base of another library). When that optimizer cannot be told (several, or none), when the step
    is conditional (gradient accumulation) or an `unscale_` already follows the
    clip, there is no fix. Nor is there one when an exception of the clip may
    be caught (inside a `try`, or a `with` that swallows errors such as
    `contextlib.suppress` or `pytest.raises`, in its function or a caller of
    it: the scaler would be left unscaled for the next iteration), when the clip raises on Inf (`error_if_nonfinite=True`: a step
    the scaler would skip raises instead), when the optimizer is assigned
    between the clip and the step, when the clip shares its line with other statements,
    or when the optimizer is written as anything but a name or an attribute
    (`scaler.step(next_optimizer())` would be called twice).

    ## Limitations
    A helper of the project (in this file or a module it imports) that clips
    before it unscales, called between `backward` and `step`, is followed;
    its call is reported, without a fix, also a method a base class gives the
    instance (`self.optimizer_step()` of a `Trainer(AmpBase)` whose inherited
    `self.backward(loss)` scales with a `self.scaler` the subclass never
    names). A helper held in a variable, and
    code of installed libraries, are not followed. When only a helper scales
    backward passes with the scaler, a clip in one branch of an `if` whose
    other branch unscales it and then clips (`if args.fp16:
    scaler.unscale_(opt); clip(...)` / `else: clip(...)`) is taken for the
    unscaled path: the helper may scale only under the same flag, which this
    rule does not follow into it. A method of an object of a class of the
    project that scales a backward pass with the object's own scaler
    (`amp.backward(loss)` running `self.scaler.scale(loss).backward()`) is
    followed as that scaler's backward, until the object's `step()`,
    `update()` or a method of it that unscales, steps or updates; not where
    the function unscales the object's scaler itself (`amp.scaler.unscale_(opt)`),
    and with no fix. A clip after a plain `optimizer.step()` of
    the scaled gradients (TL105's finding) that no other optimizer's step
    follows before new gradients is too late whatever the scale: it is
    TL403's finding, not reported here.

    A base class's loop is followed into the hooks a subclass overrides (in
    this file or a module of the project): a loop that calls
    `self.backward(loss)`, then `self.optimizer_step()`, runs for a subclass
    whose `backward` scales the loss that subclass's `optimizer_step`; a clip
    there before any `unscale_` is reported in the override, naming the loop
    (and the subclass, where one runs it with another class's hooks: `class
    AmpClipping(Clipping, Scaled)` runs Clipping's step after Scaled's backward).
    The loop's own `scaler.scale(loss).backward()` and `scaler.unscale_(opt)`
    count where they stand among its hook calls. A loop that unscales on some
    iterations only (in an `if`, or in a loop nested in it: `for opt in
    optimizers: scaler.unscale_(opt)`), or calls a hook or a function out of
    reach that may unscale before it (a callable of its own, such as a lambda,
    a method of an object the instance holds, a function handed the instance
    or its scaler), is left alone.
    """

    code = "TL101"
    name = "clip-before-unscale"
    severity = "error"
    message = "gradients are clipped while still multiplied by the loss scale: call `scaler.unscale_(optimizer)` before clipping"
    fix_safety = "safe"
    triggers = ("clip_grad",)
    bad = (
        # clipping in a helper of the project, called between backward and step
        "import torch\n"
        "def clip_gradients(model, max_norm=1.0):\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for x in loader:\n"
        "    scaler.scale(model(x).sum()).backward()\n"
        "    clip_gradients(model)  # expect: TL101\n"
        "    scaler.step(optimizer)\n"
        "    scaler.update()\n",
        Example(
            "import torch\n"
            "scaler = torch.amp.GradScaler('cuda')\n"
            "for x, y in loader:\n"
            "    scaler.scale(loss_fn(model(x), y)).backward()\n"
            "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
            "    scaler.step(optimizer)\n"
            "    scaler.update()\n",
            fixed="import torch\n"
            "scaler = torch.amp.GradScaler('cuda')\n"
            "for x, y in loader:\n"
            "    scaler.scale(loss_fn(model(x), y)).backward()\n"
            "    scaler.unscale_(optimizer)\n"
            "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
            "    scaler.step(optimizer)\n"
            "    scaler.update()\n",
        ),
        Example(
            "from torch.nn.utils import clip_grad_norm_ as clip\n"
            "from torch.cuda.amp import GradScaler\n"
            "def train(model, loader, opt):\n"
            "    scaler = GradScaler()\n"
            "    for batch in loader:\n"
            "        loss = model(batch)\n"
            "        scaler.scale(loss).backward()\n"
            "        gnorm = clip(model.parameters(), max_norm=1.0)  # expect: TL101\n"
            "        scaler.step(opt)\n"
            "        scaler.update()\n",
            fixed="from torch.nn.utils import clip_grad_norm_ as clip\n"
            "from torch.cuda.amp import GradScaler\n"
            "def train(model, loader, opt):\n"
            "    scaler = GradScaler()\n"
            "    for batch in loader:\n"
            "        loss = model(batch)\n"
            "        scaler.scale(loss).backward()\n"
            "        scaler.unscale_(opt)\n"
            "        gnorm = clip(model.parameters(), max_norm=1.0)  # expect: TL101\n"
            "        scaler.step(opt)\n"
            "        scaler.update()\n",
        ),
        Example(
            "import torch.nn as nn\n"
            "class Trainer:\n"
            "    def step(self, loss):\n"
            "        self.scaler.scale(loss).backward()\n"
            "        if self.max_norm:\n"
            "            nn.utils.clip_grad_value_(self.model.parameters(), 0.5)  # expect: TL101\n"
            "        self.scaler.step(self.optimizer)\n"
            "        self.scaler.update()\n",
            fixed="import torch.nn as nn\n"
            "class Trainer:\n"
            "    def step(self, loss):\n"
            "        self.scaler.scale(loss).backward()\n"
            "        if self.max_norm:\n"
            "            self.scaler.unscale_(self.optimizer)\n"
            "            nn.utils.clip_grad_value_(self.model.parameters(), 0.5)  # expect: TL101\n"
            "        self.scaler.step(self.optimizer)\n"
            "        self.scaler.update()\n",
        ),
        Example(
            "from torch.nn import utils\n"
            "def step(scaler, loss, model, opt, accumulate):\n"
            "    scaler.scale(loss).backward()\n"
            "    if accumulate:\n"
            "        return\n"
            "    utils.clip_grad_norm(model.parameters(), 1.0)  # expect: TL101\n"
            "    scaler.step(opt)\n"
            "    scaler.update()\n",
            fixed="from torch.nn import utils\n"
            "def step(scaler, loss, model, opt, accumulate):\n"
            "    scaler.scale(loss).backward()\n"
            "    if accumulate:\n"
            "        return\n"
            "    scaler.unscale_(opt)\n"
            "    utils.clip_grad_norm(model.parameters(), 1.0)  # expect: TL101\n"
            "    scaler.step(opt)\n"
            "    scaler.update()\n",
        ),
        # no fix: a batch skipped by the `except` would leave the scaler unscaled, and
        # the next `unscale_` would raise; an optimizer written as a call would be
        # called twice; the backward shares the clip's line
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for x, y in loader:\n"
        "    try:\n"
        "        scaler.scale(criterion(model(x), y)).backward()\n"
        "        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
        "        check_finite(norm)\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n"
        "    except FloatingPointError:\n"
        "        opt.zero_grad()\n",
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for x, y in loader:\n"
        "    scaler.scale(criterion(model(x), y)).backward()\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
        "    scaler.step(next_optimizer())\n"
        "    scaler.update()\n",
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for x, y in loader:\n"
        "    scaler.scale(criterion(model(x), y)).backward(); torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
        "    scaler.step(opt)\n"
        "    scaler.update()\n",
        # the scaled backward pass in a helper of the project
        Example(
            "import torch\n"
            "def backward(scaler, loss):\n"
            "    scaler.scale(loss).backward()\n"
            "def train(model, loader, opt, criterion):\n"
            "    scaler = torch.amp.GradScaler('cuda')\n"
            "    for x, y in loader:\n"
            "        backward(scaler, criterion(model(x), y))\n"
            "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
            "        scaler.step(opt)\n"
            "        scaler.update()\n",
            fixed="import torch\n"
            "def backward(scaler, loss):\n"
            "    scaler.scale(loss).backward()\n"
            "def train(model, loader, opt, criterion):\n"
            "    scaler = torch.amp.GradScaler('cuda')\n"
            "    for x, y in loader:\n"
            "        backward(scaler, criterion(model(x), y))\n"
            "        scaler.unscale_(opt)\n"
            "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
            "        scaler.step(opt)\n"
            "        scaler.update()\n",
        ),
        Example(  # two parameter groups clipped apart: one `unscale_` before both
            "import torch\n"
            "scaler = torch.amp.GradScaler('cuda')\n"
            "for x, y in loader:\n"
            "    optimizer.zero_grad()\n"
            "    scaler.scale(criterion(model(x), y)).backward()\n"
            "    torch.nn.utils.clip_grad_norm_(model.backbone.parameters(), 1.0)  # expect: TL101\n"
            "    torch.nn.utils.clip_grad_norm_(model.head.parameters(), 5.0)  # expect: TL101\n"
            "    scaler.step(optimizer)\n"
            "    scaler.update()\n",
            fixed="import torch\n"
            "scaler = torch.amp.GradScaler('cuda')\n"
            "for x, y in loader:\n"
            "    optimizer.zero_grad()\n"
            "    scaler.scale(criterion(model(x), y)).backward()\n"
            "    scaler.unscale_(optimizer)\n"
            "    torch.nn.utils.clip_grad_norm_(model.backbone.parameters(), 1.0)  # expect: TL101\n"
            "    torch.nn.utils.clip_grad_norm_(model.head.parameters(), 5.0)  # expect: TL101\n"
            "    scaler.step(optimizer)\n"
            "    scaler.update()\n",
        ),
        # no fix: a method inherited from a base the file cannot see has the scaler
        # through `self`, and may unscale already; a second `unscale_` would raise
        "import torch\n"
        "from trainerbase import TrainerBase\n"
        "class Trainer(TrainerBase):\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "    def train_step(self, x):\n"
        "        self.optimizer.zero_grad()\n"
        "        self.scaler.scale(self.model(x).mean()).backward()\n"
        "        self.log_grad_norm()\n"
        "        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)  # expect: TL101\n"
        "        self.scaler.step(self.optimizer)\n"
        "        self.scaler.update()\n",
        # the optimizer is built again after the clip: `unscale_(opt)` would unscale another
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for x in loader:\n"
        "    scaler.scale(model(x).sum()).backward()\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
        "    opt = make_optimizer(model)\n"
        "    scaler.step(opt)\n"
        "    scaler.update()\n",
        # a clip that raises on Inf: the step the scaler would skip raises once unscaled
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for x in loader:\n"
        "    opt.zero_grad()\n"
        "    scaler.scale(model(x).sum()).backward()\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)  # expect: TL101\n"
        "    scaler.step(opt)\n"
        "    scaler.update()\n",
        # a caller catches the errors of the step: an `unscale_` left without `update()` would raise next time
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "def train_step(x):\n"
        "    opt.zero_grad()\n"
        "    scaler.scale(model(x).sum()).backward()\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
        "    scaler.step(opt)\n"
        "    scaler.update()\n"
        "for x in loader:\n"
        "    try:\n"
        "        train_step(x)\n"
        "    except RuntimeError:\n"
        "        continue\n",
        # a progress bar's `with` lets errors through: the clip is fixed there
        Example(
            "import torch\n"
            "from tqdm import tqdm\n"
            "scaler = torch.amp.GradScaler('cuda')\n"
            "with tqdm(total=len(loader)) as bar:\n"
            "    for x in loader:\n"
            "        opt.zero_grad()\n"
            "        scaler.scale(model(x).sum()).backward()\n"
            "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
            "        scaler.step(opt)\n"
            "        scaler.update()\n"
            "        bar.update()\n",
            fixed="import torch\n"
            "from tqdm import tqdm\n"
            "scaler = torch.amp.GradScaler('cuda')\n"
            "with tqdm(total=len(loader)) as bar:\n"
            "    for x in loader:\n"
            "        opt.zero_grad()\n"
            "        scaler.scale(model(x).sum()).backward()\n"
            "        scaler.unscale_(opt)\n"
            "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
            "        scaler.step(opt)\n"
            "        scaler.update()\n"
            "        bar.update()\n",
        ),
        # the trainer's own method scales the backward pass
        Example(
            "import torch\n"
            "class Trainer:\n"
            "    def __init__(self, model):\n"
            "        self.model = model\n"
            "        self.optimizer = torch.optim.AdamW(model.parameters())\n"
            "        self.scaler = torch.amp.GradScaler('cuda')\n"
            "    def backward(self, loss):\n"
            "        self.scaler.scale(loss).backward()\n"
            "    def train_epoch(self, loader):\n"
            "        for x in loader:\n"
            "            self.optimizer.zero_grad()\n"
            "            self.backward(self.model(x).mean())\n"
            "            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)  # expect: TL101\n"
            "            self.scaler.step(self.optimizer)\n"
            "            self.scaler.update()\n",
            fixed="import torch\n"
            "class Trainer:\n"
            "    def __init__(self, model):\n"
            "        self.model = model\n"
            "        self.optimizer = torch.optim.AdamW(model.parameters())\n"
            "        self.scaler = torch.amp.GradScaler('cuda')\n"
            "    def backward(self, loss):\n"
            "        self.scaler.scale(loss).backward()\n"
            "    def train_epoch(self, loader):\n"
            "        for x in loader:\n"
            "            self.optimizer.zero_grad()\n"
            "            self.backward(self.model(x).mean())\n"
            "            self.scaler.unscale_(self.optimizer)\n"
            "            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)  # expect: TL101\n"
            "            self.scaler.step(self.optimizer)\n"
            "            self.scaler.update()\n",
        ),
        # a helper clipping through torch's function under a name of its own
        "import torch\n"
        "from torch.nn.utils import clip_grad_norm_ as clip\n"
        "\n"
        "def clip_gradients(model, max_norm):\n"
        "    return clip(model.parameters(), max_norm)\n"
        "\n"
        "scaler = torch.amp.GradScaler(\"cuda\")\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    scaler.scale(criterion(model(x), y)).backward()\n"
        "    clip_gradients(model, 1.0)  # expect: TL101\n"
        "    scaler.step(optimizer)\n"
        "    scaler.update()\n",
        # scaled right here: a branch that unscales beside one that does not is no excuse
        "import torch\n"
        "scaler = torch.amp.GradScaler(\"cuda\")\n"
        "for step, x in enumerate(loader):\n"
        "    scaler.scale(model(x).sum()).backward()\n"
        "    if step % 100 == 0:\n"
        "        scaler.unscale_(optimizer)\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "    else:\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
        "    scaler.step(optimizer)\n"
        "    scaler.update()\n"
        "    optimizer.zero_grad()\n",
        # the other branch unscales but clips nothing: not the scaled path's twin
        "import torch\n"
        "\n"
        "def backward_step(loss, scaler, args):\n"
        "    if args.fp16:\n"
        "        scaler.scale(loss).backward()\n"
        "    else:\n"
        "        loss.backward()\n"
        "\n"
        "scaler = torch.amp.GradScaler(\"cuda\")\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    backward_step(criterion(model(x), y), scaler, args)\n"
        "    if args.fp16:\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
        "    else:\n"
        "        scaler.unscale_(optimizer)\n"
        "    scaler.step(optimizer)\n"
        "    scaler.update()\n",
        # a clip bound by `functools.partial`
        Example(
            "from functools import partial\n"
            "\n"
            "import torch\n"
            "\n"
            "clip = partial(torch.nn.utils.clip_grad_norm_, max_norm=1.0)\n"
            "\n"
            "\n"
            "def train(model, loader, opt):\n"
            "    scaler = torch.amp.GradScaler(\"cuda\")\n"
            "    for x, y in loader:\n"
            "        opt.zero_grad()\n"
            "        with torch.autocast(\"cuda\"):\n"
            "            loss = torch.nn.functional.mse_loss(model(x), y)\n"
            "        scaler.scale(loss).backward()\n"
            "        clip(model.parameters())  # expect: TL101\n"
            "        scaler.step(opt)\n"
            "        scaler.update()\n",
            fixed="from functools import partial\n"
            "\n"
            "import torch\n"
            "\n"
            "clip = partial(torch.nn.utils.clip_grad_norm_, max_norm=1.0)\n"
            "\n"
            "\n"
            "def train(model, loader, opt):\n"
            "    scaler = torch.amp.GradScaler(\"cuda\")\n"
            "    for x, y in loader:\n"
            "        opt.zero_grad()\n"
            "        with torch.autocast(\"cuda\"):\n"
            "            loss = torch.nn.functional.mse_loss(model(x), y)\n"
            "        scaler.scale(loss).backward()\n"
            "        scaler.unscale_(opt)\n"
            "        clip(model.parameters())  # expect: TL101\n"
            "        scaler.step(opt)\n"
            "        scaler.update()\n",
        ),
        # a closure of a method reads the method's `self`: `self.scaler` is the GradScaler
        Example(
            "import torch\n"
            "class Trainer:\n"
            "    def fit(self, model, optimizer, loader):\n"
            "        self.scaler = torch.amp.GradScaler('cuda')\n"
            "        def run_epoch():\n"
            "            for x, y in loader:\n"
            "                optimizer.zero_grad()\n"
            "                self.scaler.scale(model(x, y)).backward()\n"
            "                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
            "                self.scaler.step(optimizer)\n"
            "                self.scaler.update()\n"
            "        run_epoch()\n",
            fixed="import torch\n"
            "class Trainer:\n"
            "    def fit(self, model, optimizer, loader):\n"
            "        self.scaler = torch.amp.GradScaler('cuda')\n"
            "        def run_epoch():\n"
            "            for x, y in loader:\n"
            "                optimizer.zero_grad()\n"
            "                self.scaler.scale(model(x, y)).backward()\n"
            "                self.scaler.unscale_(optimizer)\n"
            "                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
            "                self.scaler.step(optimizer)\n"
            "                self.scaler.update()\n"
            "        run_epoch()\n",
        ),
        # another optimizer's plain step (TL105's) comes first; the clip is for the generator's, which
        # the scaler steps after it: still too early for the scale
        Example(
            "import torch\n"
            "def train(G, D, loader, opt_g, opt_d):\n"
            "    scaler = torch.amp.GradScaler('cuda')\n"
            "    for x, z in loader:\n"
            "        opt_d.zero_grad()\n"
            "        (D(G(z).detach()).mean() - D(x).mean()).backward()\n"
            "        opt_g.zero_grad()\n"
            "        scaler.scale(-D(G(z)).mean()).backward()\n"
            "        opt_d.step()\n"
            "        torch.nn.utils.clip_grad_norm_(G.parameters(), 1.0)  # expect: TL101\n"
            "        scaler.step(opt_g)\n"
            "        scaler.update()\n",
            fixed="import torch\n"
            "def train(G, D, loader, opt_g, opt_d):\n"
            "    scaler = torch.amp.GradScaler('cuda')\n"
            "    for x, z in loader:\n"
            "        opt_d.zero_grad()\n"
            "        (D(G(z).detach()).mean() - D(x).mean()).backward()\n"
            "        opt_g.zero_grad()\n"
            "        scaler.scale(-D(G(z)).mean()).backward()\n"
            "        opt_d.step()\n"
            "        scaler.unscale_(opt_g)\n"
            "        torch.nn.utils.clip_grad_norm_(G.parameters(), 1.0)  # expect: TL101\n"
            "        scaler.step(opt_g)\n"
            "        scaler.update()\n",
        ),
        # an object's method scales the backward pass with the object's own scaler,
        # another steps: the loop clips in between
        "import torch\n"
        "class AmpStepper:\n"
        "    def __init__(self):\n"
        "        self.scaler = torch.amp.GradScaler(\"cuda\")\n"
        "    def backward(self, loss):\n"
        "        self.scaler.scale(loss).backward()\n"
        "    def step(self, optimizer):\n"
        "        self.scaler.step(optimizer)\n"
        "        self.scaler.update()\n"
        "def train(model, loader, optimizer):\n"
        "    amp = AmpStepper()\n"
        "    for x in loader:\n"
        "        optimizer.zero_grad()\n"
        "        amp.backward(model(x).mean())\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
        "        amp.step(optimizer)\n",
        # no fix, as above: the methods call their instance `trainer`, and `trainer.log_grad_norm()`,
        # inherited from a base the file cannot see, has the scaler through it
        "import torch\n"
        "from trainerbase import TrainerBase\n"
        "class Trainer(TrainerBase):\n"
        "    def __init__(trainer, model):\n"
        "        trainer.model = model\n"
        "        trainer.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "        trainer.scaler = torch.amp.GradScaler('cuda')\n"
        "    def train_step(trainer, x):\n"
        "        trainer.optimizer.zero_grad()\n"
        "        trainer.scaler.scale(trainer.model(x).mean()).backward()\n"
        "        trainer.log_grad_norm()\n"
        "        torch.nn.utils.clip_grad_norm_(trainer.model.parameters(), 1.0)  # expect: TL101\n"
        "        trainer.scaler.step(trainer.optimizer)\n"
        "        trainer.scaler.update()\n",
        # `unscale_` under another flag than the scaler's `enabled=`, under a flag while the scaler
        # is always on, or after the clip
        "import torch\n"
        "from torch.nn.utils import clip_grad_norm_\n"
        "def other_flag(model, opt, loader, use_amp, clip_early):\n"
        "    scaler = torch.amp.GradScaler(\"cuda\", enabled=use_amp)\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        scaler.scale(model(x).sum()).backward()\n"
        "        if clip_early:\n"
        "            scaler.unscale_(opt)\n"
        "        clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n"
        "def always_on(model, opt, loader, use_amp):\n"
        "    scaler = torch.amp.GradScaler(\"cuda\")\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        scaler.scale(model(x).sum()).backward()\n"
        "        if use_amp:\n"
        "            scaler.unscale_(opt)\n"
        "        clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n"
        "def after_clip(model, opt, loader, use_amp):\n"
        "    scaler = torch.amp.GradScaler(\"cuda\", enabled=use_amp)\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        scaler.scale(model(x).sum()).backward()\n"
        "        clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
        "        if use_amp:\n"
        "            scaler.unscale_(opt)\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n",
        # the subclass never names the scaler: its base's methods scale the backward pass
        # with `self.scaler` and clip before stepping it
        "import torch\n"
        "class AmpBase:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model = model\n"
        "        self.optimizer = optimizer\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "    def backward(self, loss):\n"
        "        self.scaler.scale(loss).backward()\n"
        "    def optimizer_step(self):\n"
        "        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)\n"
        "        self.scaler.step(self.optimizer)\n"
        "        self.scaler.update()\n"
        "class Trainer(AmpBase):\n"
        "    def fit(self, loader):\n"
        "        for x in loader:\n"
        "            self.optimizer.zero_grad()\n"
        "            self.backward(self.model(x).mean())\n"
        "            self.optimizer_step()  # expect: TL101\n",
        # `unscale_` under a flag that is not the scaler's `enabled=` as it was built (another
        # object's, bound again after), outside the step, before another backward, for another
        # optimizer, or only in a loop under the flag
        "import torch\n"
        "from torch.nn.utils import clip_grad_norm_\n"
        "def b1_train(model, opt, loader, args, cfg):\n"
        "    scaler = torch.amp.GradScaler(\"cuda\", enabled=args.amp)\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        scaler.scale(model(x).sum()).backward()\n"
        "        if cfg.amp:\n"
        "            scaler.unscale_(opt)\n"
        "        clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n"
        "def b3b_train(model, opt, loader, amp):\n"
        "    scaler = torch.amp.GradScaler(\"cuda\", enabled=amp)\n"
        "    amp = False\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        scaler.scale(model(x).sum()).backward()\n"
        "        if amp:\n"
        "            scaler.unscale_(opt)\n"
        "        clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n"
        "def b4_train(model, opt, loader, use_amp):\n"
        "    scaler = torch.amp.GradScaler(\"cuda\", enabled=use_amp)\n"
        "    if use_amp:\n"
        "        scaler.unscale_(opt)\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        scaler.scale(model(x).sum()).backward()\n"
        "        clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n"
        "def b10_train(model, opt, loader, use_amp):\n"
        "    scaler = torch.amp.GradScaler(\"cuda\", enabled=use_amp)\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        scaler.scale(model(x).sum()).backward()\n"
        "        if use_amp:\n"
        "            scaler.unscale_(opt)\n"
        "        scaler.scale(model(x).sum()).backward()\n"
        "        clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n"
        "def b9_train(model, disc, opt, opt_d, loader, use_amp):\n"
        "    scaler = torch.amp.GradScaler(\"cuda\", enabled=use_amp)\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        scaler.scale(model(x).sum()).backward()\n"
        "        if use_amp:\n"
        "            scaler.unscale_(opt_d)\n"
        "        clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n"
        "def b5_train(model, opt, loader, use_amp):\n"
        "    scaler = torch.amp.GradScaler(\"cuda\", enabled=use_amp)\n"
        "    for i, (x, y) in enumerate(loader):\n"
        "        opt.zero_grad()\n"
        "        scaler.scale(model(x).sum()).backward()\n"
        "        if use_amp:\n"
        "            for _ in range(0):\n"
        "                scaler.unscale_(opt)\n"
        "        clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n",
        # the flag the scaler was built with, set again by `setattr` or in an unpacking
        "import torch\n"
        "from torch.nn.utils import clip_grad_norm_\n"
        "def train(model, opt, loader, args):\n"
        "    scaler = torch.amp.GradScaler(\"cuda\", enabled=args.amp)\n"
        "    setattr(args, \"amp\", False)\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        scaler.scale(model(x).sum()).backward()\n"
        "        if args.amp:\n"
        "            scaler.unscale_(opt)\n"
        "        clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n"
        "def tune(model, opt, loader, args):\n"
        "    scaler = torch.amp.GradScaler(\"cuda\", enabled=args.fp16)\n"
        "    args.fp16, args.bf16 = False, True\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        scaler.scale(model(x).sum()).backward()\n"
        "        if args.fp16:\n"
        "            scaler.unscale_(opt)\n"
        "        clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n",
        # an override that a base class's loop runs (its line is reported)
        'import torch\n'
        'class Trainer:\n'
        '    def backward(self, loss):\n'
        '        loss.backward()\n'
        '    def optimizer_step(self):\n'
        '        self.optimizer.step()\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            self.optimizer.zero_grad()\n'
        '            self.backward(self.model(x).mean())\n'
        '            self.optimizer_step()\n'
        'class AmpTrainer(Trainer):\n'
        '    def backward(self, loss):\n'
        '        self.scaler.scale(loss).backward()\n'
        '    def optimizer_step(self):\n'
        '        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)  # expect: TL101\n'
        '        self.scaler.step(self.optimizer)\n'
        '        self.scaler.update()\n',
        # a class of two bases runs the second one's hook before their common base's, as Python does
        'import torch\n'
        'class Trainer:\n'
        '    def backward(self, loss):\n'
        '        loss.backward()\n'
        '    def optimizer_step(self):\n'
        '        self.optimizer.step()\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            self.optimizer.zero_grad()\n'
        '            self.backward(self.model(x).mean())\n'
        '            self.optimizer_step()\n'
        'class Logging(Trainer):\n'
        '    def log(self, text):\n'
        '        print(text)\n'
        'class Scaled(Trainer):\n'
        '    def backward(self, loss):\n'
        '        self.scaler.scale(loss).backward()\n'
        'class AmpTrainer(Logging, Scaled):\n'
        '    def optimizer_step(self):\n'
        '        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)  # expect: TL101\n'
        '        self.scaler.step(self.optimizer)\n'
        '        self.scaler.update()\n',
        # the loop scales the loss and unscales itself, calling the override in between
        'import torch\n'
        'class Trainer:\n'
        '    def after_backward(self):\n'
        '        pass\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            self.optimizer.zero_grad()\n'
        '            self.scaler.scale(self.model(x).mean()).backward()\n'
        '            self.after_backward()\n'
        '            self.scaler.unscale_(self.optimizer)\n'
        '            self.scaler.step(self.optimizer)\n'
        '            self.scaler.update()\n'
        'class ClippingTrainer(Trainer):\n'
        '    def after_backward(self):\n'
        '        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)  # expect: TL101\n',
        # a class of two bases runs the first one's override after the second one's scaled backward
        'import torch\n'
        'class Trainer:\n'
        '    def backward(self, loss):\n'
        '        loss.backward()\n'
        '    def optimizer_step(self):\n'
        '        self.optimizer.step()\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            self.optimizer.zero_grad()\n'
        '            self.backward(self.model(x).mean())\n'
        '            self.optimizer_step()\n'
        'class Clipping(Trainer):\n'
        '    def optimizer_step(self):\n'
        '        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)  # expect: TL101\n'
        '        self.scaler.step(self.optimizer)\n'
        '        self.scaler.update()\n'
        'class Scaled(Trainer):\n'
        '    def backward(self, loss):\n'
        '        self.scaler.scale(loss).backward()\n'
        'class AmpClipping(Clipping, Scaled):\n'
        '    pass\n',
        # a loop nested in the loop's body that unscales nothing leaves the gradients scaled
        'import torch\n'
        'class Trainer:\n'
        '    def after_backward(self):\n'
        '        pass\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            self.scaler.scale(self.model(x).mean()).backward()\n'
        '            for group in self.optimizer.param_groups:\n'
        '                print(group["lr"])\n'
        '            self.after_backward()\n'
        '            self.scaler.step(self.optimizer)\n'
        '            self.scaler.update()\n'
        'class ClippingTrainer(Trainer):\n'
        '    def after_backward(self):\n'
        '        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)  # expect: TL101\n',
        # a callable of the loop's own that unscales, called only after the override
        'import torch\n'
        'class Trainer:\n'
        '    def after_backward(self):\n'
        '        pass\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            unscale = lambda: self.scaler.unscale_(self.optimizer)\n'
        '            self.scaler.scale(self.model(x).mean()).backward()\n'
        '            self.after_backward()\n'
        '            unscale()\n'
        '            self.scaler.step(self.optimizer)\n'
        '            self.scaler.update()\n'
        'class ClippingTrainer(Trainer):\n'
        '    def after_backward(self):\n'
        '        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)  # expect: TL101\n',
        # a subclass's override calling the clipping one through `super()`: the clip is
        # reported once, at the clip, not again at the `super()` call
        'import torch\n'
        'class Trainer:\n'
        '    def after_backward(self):\n'
        '        pass\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            self.optimizer.zero_grad()\n'
        '            self.scaler.scale(self.model(x).mean()).backward()\n'
        '            self.after_backward()\n'
        '            self.scaler.unscale_(self.optimizer)\n'
        '            self.scaler.step(self.optimizer)\n'
        '            self.scaler.update()\n'
        'class ClippingTrainer(Trainer):\n'
        '    def after_backward(self):\n'
        '        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)  # expect: TL101\n'
        'class LoggedTrainer(ClippingTrainer):\n'
        '    def after_backward(self):\n'
        '        super().after_backward()\n'
        '        print("clipped")\n',
        # a scaler that always scales (no `enabled=`), unscaled only when a flag is on: with
        # the flag off the clip sees scaled gradients; nor does the wrong arm or operand unscale
        'import torch\n'
        'def train(model, opt, loader, amp):\n'
        '    scaler = torch.amp.GradScaler()\n'
        '    for x, y in loader:\n'
        '        opt.zero_grad()\n'
        '        scaler.scale(torch.nn.functional.mse_loss(model(x), y)).backward()\n'
        '        scaler.unscale_(opt) if amp else None\n'
        '        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n'
        '        scaler.step(opt)\n'
        '        scaler.update()\n'
        'def wrong_arm(model, opt, loader, amp):\n'
        '    scaler = torch.amp.GradScaler("cuda", enabled=amp)\n'
        '    for x, y in loader:\n'
        '        opt.zero_grad()\n'
        '        scaler.scale(torch.nn.functional.mse_loss(model(x), y)).backward()\n'
        '        scaler.unscale_(opt) if not amp else None\n'
        '        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n'
        '        scaler.step(opt)\n'
        '        scaler.update()\n'
        'def wrong_operand(model, opt, loader, amp):\n'
        '    scaler = torch.amp.GradScaler("cuda", enabled=amp)\n'
        '    for x, y in loader:\n'
        '        opt.zero_grad()\n'
        '        scaler.scale(torch.nn.functional.mse_loss(model(x), y)).backward()\n'
        '        amp or scaler.unscale_(opt)\n'
        '        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n'
        '        scaler.step(opt)\n'
        '        scaler.update()\n',
    )
    good = (
        # the helper unscales before it clips
        "import torch\n"
        "def clip_gradients(scaler, optimizer, model):\n"
        "    scaler.unscale_(optimizer)\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for x in loader:\n"
        "    scaler.scale(model(x).sum()).backward()\n"
        "    clip_gradients(scaler, optimizer, model)\n"
        "    scaler.step(optimizer)\n"
        "    scaler.update()\n",
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for x, y in loader:\n"
        "    scaler.scale(loss_fn(model(x), y)).backward()\n"
        "    scaler.unscale_(optimizer)\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "    scaler.step(optimizer)\n"
        "    scaler.update()\n",
        # the chapter's template: fp16 and bf16 paths in one function
        "import torch\n"
        "def train_one_epoch(model, loader, criterion, optimizer, scaler=None):\n"
        "    for x, y in loader:\n"
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
        "            optimizer.step()\n",
        # the same condition decides both: no path clips before unscaling
        "import torch\n"
        "def step(loss, model, opt, scaler, use_amp):\n"
        "    if use_amp:\n"
        "        scaler.scale(loss).backward()\n"
        "    else:\n"
        "        loss.backward()\n"
        "    if use_amp:\n"
        "        scaler.unscale_(opt)\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n",
        # no GradScaler involved (bf16)
        "import torch\n"
        "with torch.autocast('cuda', dtype=torch.bfloat16):\n"
        "    loss = model(x)\n"
        "loss.backward()\n"
        "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "optimizer.step()\n",
        # a local function that only shares the name
        "def clip_grad_norm_(params, value):\n"
        "    pass\n"
        "scaler.scale(loss).backward()\n"
        "clip_grad_norm_(model.parameters(), 1.0)\n",
        # clipping after the step is a different rule
        "import torch\n"
        "scaler.scale(loss).backward()\n"
        "scaler.step(opt)\n"
        "scaler.update()\n"
        "# torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n",
        # a method of the trainer unscales before the clip
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        "        self.optimizer = torch.optim.AdamW(model.parameters())\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "    def prepare_grads(self):\n"
        "        self.scaler.unscale_(self.optimizer)\n"
        "    def fit(self, loader):\n"
        "        for x in loader:\n"
        "            self.optimizer.zero_grad()\n"
        "            self.scaler.scale(self.model(x).mean()).backward()\n"
        "            self.prepare_grads()\n"
        "            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)\n"
        "            self.scaler.step(self.optimizer)\n"
        "            self.scaler.update()\n",
        # the trainer's method scales only under AMP, and the loop unscales then
        "import torch\n"
        "class Trainer:\n"
        "    def training_step(self, model, x):\n"
        "        loss = model(x).mean()\n"
        "        if self.use_amp:\n"
        "            self.scaler.scale(loss).backward()\n"
        "        else:\n"
        "            loss.backward()\n"
        "    def train(self, model, loader):\n"
        "        for x in loader:\n"
        "            self.training_step(model, x)\n"
        "            if self.use_amp:\n"
        "                self.scaler.unscale_(self.optimizer)\n"
        "            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "            if self.use_amp:\n"
        "                self.scaler.step(self.optimizer)\n"
        "                self.scaler.update()\n"
        "            else:\n"
        "                self.optimizer.step()\n",
        # the same shape with a project function of that name
        "import torch\n"
        "from utils import clip_and_log as clip\n"
        "\n"
        "def clip_gradients(model, max_norm):\n"
        "    return clip(model.parameters(), max_norm)\n"
        "\n"
        "scaler = torch.amp.GradScaler(\"cuda\")\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    scaler.scale(criterion(model(x), y)).backward()\n"
        "    clip_gradients(model, 1.0)\n"
        "    scaler.step(optimizer)\n"
        "    scaler.update()\n",
        # a helper scales only under a flag: the caller's branch that does not unscale is the unscaled path
        "import torch\n"
        "\n"
        "def backward_step(loss, scaler, args):\n"
        "    if args.fp16:\n"
        "        scaler.scale(loss).backward()\n"
        "    else:\n"
        "        loss.backward()\n"
        "\n"
        "scaler = torch.amp.GradScaler(\"cuda\")\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    backward_step(criterion(model(x), y), scaler, args)\n"
        "    if args.fp16:\n"
        "        scaler.unscale_(optimizer)\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "    else:\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "    if args.fp16:\n"
        "        scaler.step(optimizer)\n"
        "        scaler.update()\n"
        "    else:\n"
        "        optimizer.step()\n",
        # the closure unscales through the method's `self.scaler` before it clips
        "import torch\n"
        "class Trainer:\n"
        "    def fit(self, model, optimizer, loader):\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "        def run_epoch():\n"
        "            for x, y in loader:\n"
        "                optimizer.zero_grad()\n"
        "                self.scaler.scale(model(x, y)).backward()\n"
        "                self.scaler.unscale_(optimizer)\n"
        "                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "                self.scaler.step(optimizer)\n"
        "                self.scaler.update()\n"
        "        run_epoch()\n",
        # each optimizer of a list written out in the function unscaled in a loop over it: the loop runs, so the clip after it sees unscaled gradients
        "import torch\n"
        "def train(encoder, proj, loader):\n"
        "    optimizers = [torch.optim.Adam(encoder.parameters()), torch.optim.Adam(proj.parameters())]\n"
        "    scaler = torch.amp.GradScaler(\"cuda\")\n"
        "    for x in loader:\n"
        "        scaler.scale(proj(encoder(x)).mean()).backward()\n"
        "        for opt in optimizers:\n"
        "            scaler.unscale_(opt)\n"
        "        torch.nn.utils.clip_grad_norm_([*encoder.parameters(), *proj.parameters()], 1.0)\n"
        "        for opt in optimizers:\n"
        "            scaler.step(opt)\n"
        "        scaler.update()\n"
        "        for opt in optimizers:\n"
        "            opt.zero_grad()\n",
        # a clip after the plain step that bypassed the scaler: too late whatever the scale (TL403
        # reports it; TL105 the step), so `unscale_` before it is no advice
        "import torch\n"
        "def train(model, optimizer, loader):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    for x in loader:\n"
        "        optimizer.zero_grad()\n"
        "        with torch.autocast('cuda'):\n"
        "            loss = model(x).mean()\n"
        "        scaler.scale(loss).backward()\n"
        "        optimizer.step()\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n",
        # the same object, its scaler unscaled by the loop before the clip
        "import torch\n"
        "class AmpStepper:\n"
        "    def __init__(self):\n"
        "        self.scaler = torch.amp.GradScaler(\"cuda\")\n"
        "    def backward(self, loss):\n"
        "        self.scaler.scale(loss).backward()\n"
        "    def step(self, optimizer):\n"
        "        self.scaler.step(optimizer)\n"
        "        self.scaler.update()\n"
        "def train(model, loader, optimizer):\n"
        "    amp = AmpStepper()\n"
        "    for x in loader:\n"
        "        optimizer.zero_grad()\n"
        "        amp.backward(model(x).mean())\n"
        "        amp.scaler.unscale_(optimizer)\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "        amp.step(optimizer)\n",
        # an object whose backward method unscales after the scaled backward pass
        "import torch\n"
        "class UnscalingBackward:\n"
        "    def __init__(self):\n"
        "        self.scaler = torch.amp.GradScaler(\"cuda\")\n"
        "    def backward(self, loss, optimizer):\n"
        "        self.scaler.scale(loss).backward()\n"
        "        self.scaler.unscale_(optimizer)\n"
        "    def step(self, optimizer):\n"
        "        self.scaler.step(optimizer)\n"
        "        self.scaler.update()\n"
        "def train(model, loader, optimizer):\n"
        "    amp = UnscalingBackward()\n"
        "    for x in loader:\n"
        "        optimizer.zero_grad()\n"
        "        amp.backward(model(x).mean(), optimizer)\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "        amp.step(optimizer)\n",
        # a scaler enabled by the flag that guards its `unscale_` (`GradScaler(enabled=use_amp)`,
        # `if use_amp: scaler.unscale_(opt)`): with the flag off it scales nothing
        "import torch\n"
        "from torch.nn.utils import clip_grad_norm_\n"
        "def train(model, opt, loader, use_amp):\n"
        "    scaler = torch.amp.GradScaler(\"cuda\", enabled=use_amp)\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        with torch.autocast(\"cuda\", dtype=torch.float16, enabled=use_amp):\n"
        "            loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "        scaler.scale(loss).backward()\n"
        "        if use_amp:\n"
        "            scaler.unscale_(opt)\n"
        "        clip_grad_norm_(model.parameters(), 1.0)\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n"
        "def one_line(model, opt, loader, args):\n"
        "    scaler = torch.amp.GradScaler(\"cuda\", enabled=args.amp)\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        scaler.scale(model(x).sum()).backward()\n"
        "        if args.amp: scaler.unscale_(opt)\n"
        "        clip_grad_norm_(model.parameters(), 1.0)\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n"
        "class Trainer:\n"
        "    def __init__(self, model, opt, use_amp):\n"
        "        self.model, self.opt, self.use_amp = model, opt, use_amp\n"
        "        self.scaler = torch.cuda.amp.GradScaler(enabled=use_amp)\n"
        "    def step(self, x):\n"
        "        self.opt.zero_grad()\n"
        "        self.scaler.scale(self.model(x).sum()).backward()\n"
        "        if self.use_amp:\n"
        "            self.scaler.unscale_(self.opt)\n"
        "        clip_grad_norm_(self.model.parameters(), 1.0)\n"
        "        self.scaler.step(self.opt)\n"
        "        self.scaler.update()\n",
        # the same subclass of a base whose step unscales before it clips
        "import torch\n"
        "class AmpBase:\n"
        "    def __init__(self, model, optimizer):\n"
        "        self.model = model\n"
        "        self.optimizer = optimizer\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "    def backward(self, loss):\n"
        "        self.scaler.scale(loss).backward()\n"
        "    def optimizer_step(self):\n"
        "        self.scaler.unscale_(self.optimizer)\n"
        "        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)\n"
        "        self.scaler.step(self.optimizer)\n"
        "        self.scaler.update()\n"
        "class Trainer(AmpBase):\n"
        "    def fit(self, loader):\n"
        "        for x in loader:\n"
        "            self.optimizer.zero_grad()\n"
        "            self.backward(self.model(x).mean())\n"
        "            self.optimizer_step()\n",
        # overrides of a base class's hooks that do it right, or that the loop runs now and then or by name
        'import torch\n'
        'class Trainer:\n'
        '    def backward(self, loss):\n'
        '        loss.backward()\n'
        '    def optimizer_step(self):\n'
        '        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)\n'
        '        self.optimizer.step()\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            self.optimizer.zero_grad()\n'
        '            self.backward(self.model(x).mean())\n'
        '            self.optimizer_step()\n'
        'class AmpTrainer(Trainer):\n'
        '    def backward(self, loss):\n'
        '        self.scaler.scale(loss).backward()\n'
        '    def optimizer_step(self):\n'
        '        self.scaler.unscale_(self.optimizer)\n'
        '        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)\n'
        '        self.scaler.step(self.optimizer)\n'
        '        self.scaler.update()\n',
        # the second base's hook back-propagates with no scaler, and Python runs it before the common base's
        'import torch\n'
        'class Trainer:\n'
        '    def backward(self, loss):\n'
        '        self.scaler.scale(loss).backward()\n'
        '    def optimizer_step(self):\n'
        '        self.optimizer.step()\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            self.optimizer.zero_grad()\n'
        '            self.backward(self.model(x).mean())\n'
        '            self.optimizer_step()\n'
        'class Logging(Trainer):\n'
        '    def log(self, text):\n'
        '        print(text)\n'
        'class Plain(Trainer):\n'
        '    def backward(self, loss):\n'
        '        loss.backward()\n'
        'class ClippingTrainer(Logging, Plain):\n'
        '    def optimizer_step(self):\n'
        '        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)\n'
        '        self.optimizer.step()\n',
        # the loop unscales before the override (or has a function unscale, or does on some iterations only)
        'import torch\n'
        'def unscale_all(scaler, optimizer):\n'
        '    scaler.unscale_(optimizer)\n'
        'class Trainer:\n'
        '    def after_backward(self):\n'
        '        pass\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            self.optimizer.zero_grad()\n'
        '            self.scaler.scale(self.model(x).mean()).backward()\n'
        '            self.scaler.unscale_(self.optimizer)\n'
        '            self.after_backward()\n'
        '            self.scaler.step(self.optimizer)\n'
        '            self.scaler.update()\n'
        '    def tune(self, loader):\n'
        '        for x in loader:\n'
        '            self.optimizer.zero_grad()\n'
        '            self.scaler.scale(self.model(x).mean()).backward()\n'
        '            unscale_all(self.scaler, self.optimizer)\n'
        '            self.after_backward()\n'
        '            self.scaler.step(self.optimizer)\n'
        '            self.scaler.update()\n'
        '    def probe(self, loader):\n'
        '        for x in loader:\n'
        '            self.optimizer.zero_grad()\n'
        '            self.scaler.scale(self.model(x).mean()).backward()\n'
        '            if self.clip:\n'
        '                self.scaler.unscale_(self.optimizer)\n'
        '            self.after_backward()\n'
        '            self.scaler.step(self.optimizer)\n'
        '            self.scaler.update()\n'
        'class ClippingTrainer(Trainer):\n'
        '    def after_backward(self):\n'
        '        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)\n',
        # the second base of a class of two changes nothing the first one's override runs after
        'import torch\n'
        'class Trainer:\n'
        '    def backward(self, loss):\n'
        '        loss.backward()\n'
        '    def optimizer_step(self):\n'
        '        self.optimizer.step()\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            self.optimizer.zero_grad()\n'
        '            self.backward(self.model(x).mean())\n'
        '            self.optimizer_step()\n'
        'class Clipping(Trainer):\n'
        '    def optimizer_step(self):\n'
        '        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)\n'
        '        self.optimizer.step()\n'
        'class Scaled(Trainer):\n'
        '    def backward(self, loss):\n'
        '        self.scaler.scale(loss).backward()\n'
        'class Logging(Trainer):\n'
        '    def log(self, text):\n'
        '        print(text)\n'
        'class LoggedClipping(Clipping, Logging):\n'
        '    pass\n'
        'class LoggedScaled(Scaled, Logging):\n'
        '    pass\n',
        # the loop unscales each optimizer in a loop of its own before the override: it may unscale
        'import torch\n'
        'class Trainer:\n'
        '    def after_backward(self):\n'
        '        pass\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            self.scaler.scale(self.model(x).mean()).backward()\n'
        '            for optimizer in (self.encoder_optimizer, self.decoder_optimizer):\n'
        '                self.scaler.unscale_(optimizer)\n'
        '            self.after_backward()\n'
        '            for optimizer in (self.encoder_optimizer, self.decoder_optimizer):\n'
        '                self.scaler.step(optimizer)\n'
        '            self.scaler.update()\n'
        'class ClippingTrainer(Trainer):\n'
        '    def after_backward(self):\n'
        '        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)\n',
        # a callable of the loop's own the linter does not follow, called before the override, may unscale
        'import torch\n'
        'class Trainer:\n'
        '    def after_backward(self):\n'
        '        pass\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            unscale = lambda: self.scaler.unscale_(self.optimizer)\n'
        '            self.scaler.scale(self.model(x).mean()).backward()\n'
        '            unscale()\n'
        '            self.after_backward()\n'
        '            self.scaler.step(self.optimizer)\n'
        '            self.scaler.update()\n'
        'class ClippingTrainer(Trainer):\n'
        '    def after_backward(self):\n'
        '        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)\n',
        # the flag-guarded `unscale_` of a scaler enabled by that flag, written as a conditional
        # expression (`... if amp else None`, `... if not amp else ...`) inside the step's `if`
        'import torch\n'
        'def train(model, opt, loader, accum, amp):\n'
        '    scaler = torch.amp.GradScaler("cuda", enabled=amp)\n'
        '    for i, (x, y) in enumerate(loader):\n'
        '        scaler.scale(torch.nn.functional.mse_loss(model(x), y)).backward()\n'
        '        if (i + 1) % accum == 0:\n'
        '            scaler.unscale_(opt) if amp else None\n'
        '            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n'
        '            scaler.step(opt)\n'
        '            scaler.update()\n'
        '            opt.zero_grad()\n'
        'def negated(model, opt, loader, amp):\n'
        '    scaler = torch.amp.GradScaler("cuda", enabled=amp)\n'
        '    for x, y in loader:\n'
        '        opt.zero_grad()\n'
        '        scaler.scale(torch.nn.functional.mse_loss(model(x), y)).backward()\n'
        '        None if not amp else scaler.unscale_(opt)\n'
        '        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n'
        '        scaler.step(opt)\n'
        '        scaler.update()\n',
        # ... and as the right operand of `amp and ...` / `not amp or ...`
        'import torch\n'
        'def train(model, opt, loader, amp):\n'
        '    scaler = torch.amp.GradScaler("cuda", enabled=amp)\n'
        '    for x, y in loader:\n'
        '        opt.zero_grad()\n'
        '        scaler.scale(torch.nn.functional.mse_loss(model(x), y)).backward()\n'
        '        amp and scaler.unscale_(opt)\n'
        '        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n'
        '        scaler.step(opt)\n'
        '        scaler.update()\n'
        'def negated(model, opt, loader, amp):\n'
        '    scaler = torch.amp.GradScaler("cuda", enabled=amp)\n'
        '    for x, y in loader:\n'
        '        opt.zero_grad()\n'
        '        scaler.scale(torch.nn.functional.mse_loss(model(x), y)).backward()\n'
        '        not amp or scaler.unscale_(opt)\n'
        '        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n'
        '        scaler.step(opt)\n'
        '        scaler.update()\n',
    )

    def finish(self) -> None:
        # objects whose method scales a backward pass with their own scaler, with that scaler as written
        self._held: dict[Binding, str] = {}
        self._step_targets: dict[Binding, set[str]] = {}
        self._unscaled: set[Binding] = set()  # scalers the code unscales somewhere
        self._clips: dict[cst.Call, set[Binding]] = {}
        for body in code_bodies(self.ctx):
            Flow(self.ctx, self._transfer, events=self._is_event).run_if_events(body)
        fixed: set[tuple[cst.FunctionDef | None, Binding]] = set()
        for clip, scalers in sorted(self._clips.items(), key=lambda item: self.ctx.order_index(item[0])):
            if is_clip_call(self.ctx, clip):
                # one `unscale_` per step: a later clip of the same scaler (two parameter
                # groups clipped apart) is fixed by the first one's, or not at all
                places = {(self.ctx.enclosing_function(clip), scaler) for scaler in scalers}
                first = not places & fixed
                fixed |= places
                self.report(clip, self._message(scalers), fix=self._fix(clip, scalers) if first else None)
            else:
                self.report(clip, _IN_HELPER.format(self.ctx.code(clip.func), self._unscale_call(scalers)))
        runs = [(run, scaler) for run in hook_runs(self.ctx) if _clips_first(run.summary)
                for unscaled, scaler in [scaling_before(self.ctx, run)] if unscaled is False]
        judged = {run.function for run, _ in runs}
        for run, scaler in runs:
            self._check_override(run, scaler, judged)

    def _check_override(self, run: HookRun, scaler: str, judged: set[cst.FunctionDef]) -> None:
        """An override a base class's loop calls after a backward through a GradScaler,
        with no `unscale_` since: its clips before its own first `unscale_` are reported
        (see `hook_runs`); a call of another override judged so (`super().hook()` of a
        subclass's `hook`) is not reported again, its clip is."""
        targets = self.ctx.summaries.targets
        for call in self.ctx.calls_in_order(run.function.body):
            helper = self.ctx.summaries.of_call(call)
            if method_call(call, "unscale_") is not None or (helper is not None and helper.does(UNSCALE)):
                return
            if is_clip_call(self.ctx, call):
                self.report(call, _IN_HOOK.format(run.names(), scaler, scaler))
            elif helper is not None and _clips_first(helper):
                key = targets.target(call)
                if key is None or targets.function(key) not in judged - {run.function}:
                    self.report(call, _IN_HOOK.format(run.names(), scaler, scaler))

    def _message(self, scalers: set[Binding]) -> str:
        """The message, naming the scaler and the optimizer as the code does
        (`fp16_scaler.unscale_(opt)`) when each is one."""
        return ("gradients are clipped while still multiplied by the loss scale: call "
                f"`{self._unscale_call(scalers)}` before clipping")

    def _unscale_call(self, scalers: set[Binding]) -> str:
        """`fp16_scaler.unscale_(opt)` as the code names them, when it names one each."""
        if len(scalers) != 1:
            return "scaler.unscale_(optimizer)"
        (scaler,) = scalers
        optimizers = self._step_targets.get(scaler, set())
        optimizer = next(iter(optimizers)) if len(optimizers) == 1 else "optimizer"
        return f"{self._held.get(scaler, scaler.name)}.unscale_({optimizer})"

    def _is_event(self, node: cst.CSTNode) -> bool:
        """Every node `_transfer` can react to."""
        return (
            method_call(node, "backward", "unscale_", "step", "update") is not None
            or is_clip_call(self.ctx, node)
            or clears_grads(self.ctx, node)
            or self._helper_clips(node)
            or self._helper_unscales(node)
            or bool(self._scaled_by_helper(node))
        )

    def _helper_unscales(self, node: cst.CSTNode) -> bool:
        """A call of a function of the project that unscales gradients and does not
        clip before it (`unscale_all(scaler, opt)`, a trainer's `prepare_grads()`)."""
        summary = self.ctx.summaries.of_call(node) if type(node) is cst.Call else None
        return summary is not None and summary.does(UNSCALE) and not self._helper_clips(node)

    def _scaled_by_helper(self, node: cst.CSTNode) -> list[cst.BaseExpression]:
        """The GradScalers a call of a function of the project scales a backward
        pass with and leaves so (`backward(scaler, loss)` running
        `scaler.scale(loss).backward()`, no unscale nor step after it)."""
        summary = self.ctx.summaries.of_call(node) if type(node) is cst.Call else None
        if summary is None or not summary.scales_backward or summary.does(UNSCALE) or summary.does(STEP):
            return []
        # what the helper scales a backward pass with is a GradScaler, unless this file
        # knows it is something else
        found = [arg.value for slot, arg in argument_slots(node)  # type: ignore[arg-type]
                 if summary.slot(slot) in summary.scales_backward
                 and self.ctx.receivers.kind(arg.value) in (None, GRAD_SCALER)]
        func = node.func  # type: ignore[attr-defined]
        held = self._held_scaler(node, summary) if not found else None
        if held is not None:
            found.append(held)
        elif type(func) is cst.Attribute and receiver_method(self.ctx, func.value) is not None:
            # a method of the same instance: `self.backward(loss)` scaling with `self.scaler`;
            # the method may scale only on some runs (`if self.use_amp:`): where the caller
            # unscales that scaler on some path, it handles those runs itself
            for attribute in sorted(a for a in summary.scales_backward if a.startswith("self.")):
                own = own_attribute(self.ctx, node, attribute)
                if own is None:
                    found.extend(self._inherited_scaler(node, attribute))
                elif self.ctx.receivers.kind(own) in (None, GRAD_SCALER) and not self._unscales_in_function(node, own):
                    found.append(own)
        return found

    def _inherited_scaler(self, node: cst.Call, attribute: str) -> list[cst.BaseExpression]:
        """The instance `self.backward(loss)` is called on, where the method (of a base
        class, often of another module) scales with a scaler attribute the class around
        the call never names (`self.scaler`, set in the base's constructor): the
        instance stands for its scaler, as `_held_scaler`'s object does, and its methods
        that unscale, step or update end it (see `_transfer`)."""
        instance = node.func.value  # type: ignore[attr-defined]
        binding = self.ctx.receivers.binding(instance)
        if binding is None:
            return []
        self._held.setdefault(binding, f"{self.ctx.code(instance)}.{attribute[len('self.'):]}")
        return [instance]

    def _held_scaler(self, node: cst.Call, summary: Summary) -> cst.BaseExpression | None:
        """The object a method of a class of the project is called on (`amp.backward(loss)`
        of `amp = AmpStepper()`), where the method scales a backward pass with the
        object's own scaler (`self.scaler.scale(loss).backward()`, see `_scaled_by_helper`)
        and the function around the call unscales nothing through the object (see
        `scaler_holder`): the object stands for its scaler, which its `step()`, `update()`
        or a method of it that unscales, steps or updates ends (see `_transfer`)."""
        owned = sorted(a for a in summary.scales_backward if a.startswith("self."))
        if len(owned) != 1 or self.ctx.summaries.of_unwalked_call(node) is not summary:
            return None
        obj = scaler_holder(self.ctx, node, ("unscale_",), within=self.ctx.enclosing_function(node))
        if obj is None or manages_optimizers(self.ctx, obj):
            return None  # accelerate's `accelerator.prepare(optimizer)`: its steps may go through its scaler
        self._held.setdefault(self.ctx.receivers.binding(obj), f"{self.ctx.code(obj)}.{owned[0][len('self.'):]}")  # type: ignore[arg-type]
        return obj

    def _unscales_in_function(self, at: cst.CSTNode, scaler: cst.BaseExpression) -> bool:
        """The function holding `at` calls `unscale_` on `scaler`, on any path."""
        function = self.ctx.enclosing_function(at)
        binding = self.ctx.receivers.binding(scaler)
        return function is not None and binding is not None and any(
            (target := method_call(node, "unscale_")) is not None and self.ctx.receivers.binding(target) == binding
            for node in self.ctx.subtree(function))


    def _helper_clips(self, node: cst.CSTNode) -> bool:
        """A call of a function of the project that clips gradients before
        it unscales any (`clip_gradients(model)`)."""
        summary = self.ctx.summaries.of_call(node) if type(node) is cst.Call else None
        if summary is None or not summary.does(CLIP):
            return False
        effects = summary.effects
        return UNSCALE not in effects or effects.index(CLIP) < effects.index(UNSCALE)

    def _transfer(self, facts: Facts, node: cst.CSTNode) -> Facts:
        receivers = self.ctx.receivers
        if is_backward(node) or clears_grads(self.ctx, node):
            facts = frozenset(fact for fact in facts if type(fact) is not _PlainStep)  # new gradients
        scaler = scaled_backward_scaler(node)
        if scaler is not None and receivers.is_kind(scaler, GRAD_SCALER):
            binding = receivers.binding(scaler)
            return facts | {binding} if binding is not None else facts
        scaled = [b for s in self._scaled_by_helper(node) if (b := receivers.binding(s)) is not None]
        if scaled:
            return facts | set(scaled)
        target = method_call(node, "unscale_", "step", "update")
        if target is not None and (receivers.is_kind(target, GRAD_SCALER) or receivers.binding(target) in facts):
            binding = receivers.binding(target)
            if method_call(node, "step") is not None and type(node) is cst.Call and node.args:
                self._step_targets.setdefault(binding, set()).add(self.ctx.code(node.args[0].value))  # type: ignore[arg-type]
            if method_call(node, "unscale_") is not None and binding is not None:
                self._unscaled.add(binding)
            return facts - {binding}
        if facts and self._helper_unscales(node):
            return frozenset()  # `self.prepare_grads()` that unscales (and may clip after): whichever scaler
        if facts and self._held and type(node) is cst.Call and type(node.func) is cst.Attribute:  # type: ignore[attr-defined]
            held = receivers.binding(node.func.value)  # type: ignore[attr-defined]
            summary = self.ctx.summaries.of_call(node) if held in self._held else None  # type: ignore[arg-type]
            if summary is not None and (summary.does(STEP) or summary.does(SCALER_UPDATE)):
                # `amp.apply(opt)`: the object's method steps its scaled gradients, after
                # clipping them first if it does (`self.optimizer_step()` of a base class)
                self._note_clip(node, facts)
                return facts - {held}
        stepped = optimizer_step(self.ctx, node)
        if stepped is not None and any(type(fact) is Binding for fact in facts):
            # a plain `optimizer.step()` of the scaled gradients (TL105's finding)
            return facts | {_PlainStep(self.ctx.code(stepped))}
        if facts and self._after_plain_step(node, facts):
            return facts  # the clip follows the step: TL403's finding, and `unscale_` would not help
        self._note_clip(node, facts)
        return facts

    def _note_clip(self, node: cst.CSTNode, facts: Facts) -> None:
        """`node` clips (or a helper it calls does, before unscaling) gradients that
        the scalers in `facts` scaled."""
        if facts and (is_clip_call(self.ctx, node) or self._helper_clips(node)):
            scaled = {binding for binding in facts if type(binding) is Binding
                      and not _known_none(self.ctx, node, binding.name)
                      and not self._other_branch_unscales(node, binding)
                      and not self._unscaled_when_enabled(node, binding)}
            if scaled:
                self._clips.setdefault(node, set()).update(scaled)  # type: ignore[arg-type]

    def _after_plain_step(self, node: cst.CSTNode, facts: Facts) -> bool:
        """`node` clips after a plain step of the scaled gradients in the same
        iteration, and no other optimizer steps after it before new gradients (whose
        clip it could be): the clip is too late, whatever the scale (see TL403)."""
        stepped = {fact.optimizer for fact in facts if type(fact) is _PlainStep}
        return bool(stepped) and is_clip_call(self.ctx, node) and not steps_another_after(self.ctx, node, stepped)

    def _other_branch_unscales(self, clip: cst.CSTNode, scaler: Binding) -> bool:
        """`clip` sits in one branch of an `if` whose other branch unscales `scaler`
        and then clips (`if args.fp16: scaler.unscale_(opt); clip(...)  else: clip(...)`),
        and only a helper scales backward passes with `scaler`: the code tells its
        scaled path from the other, whatever the helper called before decides by the
        same flag (`backward_step(loss, scaler, args)` scaling only `if args.fp16`)."""
        helper_scaled, inline_scaled = self._scaled_where
        if scaler not in helper_scaled or scaler in inline_scaled:
            return False
        for other, in_condition in opposite_branches(self.ctx, clip):
            if in_condition:
                return False  # a clip in a condition (`elif clip(...) > 10:`)
            if other is not None and self._unscales_then_clips(other, scaler):
                return True
        return False

    def _unscaled_when_enabled(self, clip: cst.CSTNode, scaler: Binding) -> bool:
        """`scaler` is built once, with `enabled=` a flag (`GradScaler(enabled=use_amp)`),
        and a statement that runs only where that same flag is on unscales it for the
        optimizer it steps just before the clip, in the same block, with no backward pass
        between them (`if use_amp: scaler.unscale_(opt)`, `use_amp and scaler.unscale_(opt)`;
        see `_run_when_on`): where the flag is off the scaler scales nothing, so the
        gradients the clip sees are never scaled."""
        values = self.ctx.receivers.assigned(scaler)
        if len(values) != 1 or type(values[0]) is not cst.Call:
            return False
        enabled = keyword(values[0], "enabled")
        statement = statement_of(self.ctx, clip)
        block = self.ctx.parent(statement) if statement is not None else None
        if enabled is None or literal_bool(enabled.value) is not None or type(block) is not cst.IndentedBlock:
            return False
        stepped = self._step_targets_in(clip, scaler)
        for earlier in reversed(block.body[:block.body.index(statement)]):  # type: ignore[arg-type]
            if any(self.ctx.receivers.binding(target) == scaler and call.args  # type: ignore[attr-defined]
                   and self.ctx.code(call.args[0].value) in stepped  # type: ignore[attr-defined]
                   for call in self._run_when_on(earlier, enabled.value)
                   if (target := method_call(call, "unscale_")) is not None):
                return True
            if any(is_backward(node) or clears_grads(self.ctx, node) for node in self.ctx.subtree(earlier)):
                return False
        return False

    def _run_when_on(self, statement: cst.BaseStatement, flag: cst.BaseExpression) -> list[cst.BaseExpression]:
        """The expression statements `statement` runs only where `flag` is on: the body of
        `if flag:` with no `else`, the chosen arm of `call if flag else other` (`other if not
        flag else call`), the right operand of `flag and call` (`not flag or call`)."""
        if type(statement) is cst.If:
            if statement.orelse is None and self._reads_flag(statement.test, flag, True):
                return [node.value for node in simple_statements(statement.body) if type(node) is cst.Expr]
            return []
        run: list[cst.BaseExpression] = []
        for node in simple_statements(statement) if type(statement) is cst.SimpleStatementLine else ():
            value = node.value if type(node) is cst.Expr else None
            if type(value) is cst.IfExp:
                run += [arm for arm, on in ((value.body, True), (value.orelse, False))
                        if self._reads_flag(value.test, flag, on)]
            elif type(value) is cst.BooleanOperation:
                on = type(value.operator) is cst.And
                run += [value.right] if self._reads_flag(value.left, flag, on) else []
        return run

    def _reads_flag(self, test: cst.BaseExpression, flag: cst.BaseExpression, on: bool) -> bool:
        """`test` is true exactly where `flag` is `on`: `flag` itself, or `not flag` for off."""
        if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            return self._reads_flag(test.expression, flag, not on)
        return on and self._same_flag(test, flag)

    def _step_targets_in(self, clip: cst.CSTNode, scaler: Binding) -> set[str]:
        """The optimizers (as written) `scaler.step(...)` steps in the clip's function."""
        function = self.ctx.enclosing_function(clip)
        return {self.ctx.code(node.args[0].value)  # type: ignore[attr-defined]
                for node in self.ctx.own_nodes(function.body if function is not None else self.ctx.module)
                if (target := method_call(node, "step")) is not None and node.args  # type: ignore[attr-defined]
                and self.ctx.receivers.binding(target) == scaler}

    def _same_flag(self, test: cst.BaseExpression, flag: cst.BaseExpression) -> bool:
        """`test` reads what `flag` read where the scaler was built: the same variable, not
        bound again after the scaler is built; or `self.name` that the building method
        sets from its parameter `name` (`self.use_amp = use_amp`), nowhere else; or the
        same attribute (see `_same_attribute`)."""
        receivers = self.ctx.receivers
        if type(flag) is cst.Attribute:
            return self._same_attribute(test, flag)
        if type(flag) is not cst.Name:
            return False
        binding = receivers.binding(flag)
        if binding is None or any(self.ctx.order_index(node) > self.ctx.order_index(flag)
                                  for node, _, _ in receivers.bound_at(binding)):
            return False  # bound again after the scaler is built (`amp = False`)
        if type(test) is cst.Name:
            return receivers.binding(test) == binding
        if type(test) is not cst.Attribute or test.attr.value != flag.value:
            return False
        held = receivers.binding(test)
        sets = [value for value in receivers.assigned(held)] if held is not None else []
        return (held is not None and held.name.startswith("self.") and len(list(receivers.bound_at(held))) == 1
                and len(sets) == 1 and type(sets[0]) is cst.Name and receivers.binding(sets[0]) == binding)

    def _same_attribute(self, test: cst.BaseExpression, flag: cst.Attribute) -> bool:
        """`test` is written as `flag` (`args.amp`, `self.use_amp`) and reads the same
        attribute of the same object, which nothing in the file sets again."""
        receivers = self.ctx.receivers
        if type(test) is not cst.Attribute or self.ctx.code(test) != self.ctx.code(flag):
            return False
        held = receivers.binding(flag)
        if held is not None:  # `self.use_amp`: one variable in every method
            return receivers.binding(test) == held and len(list(receivers.bound_at(held))) <= 1
        head, other = head_name(flag), head_name(test)
        if head is None or other is None:
            return False
        owner = receivers.binding(head)
        if owner is None or receivers.binding(other) != owner or len(list(receivers.bound_at(owner))) > 1:
            return False
        return self.ctx.code(flag) not in self.ctx.shared(_written_attributes)

    def _unscales_then_clips(self, branch: cst.CSTNode, scaler: Binding) -> bool:
        unscaled = False
        for node in self.ctx.subtree(branch):
            target = method_call(node, "unscale_")
            if target is not None and self.ctx.receivers.binding(target) == scaler:
                unscaled = True
            elif unscaled and is_clip_call(self.ctx, node):
                return True
        return False

    @functools.cached_property
    def _scaled_where(self) -> tuple[set[Binding], set[Binding]]:
        """The scalers helpers scale backward passes with, and those the file's own
        `s.scale(loss).backward()` does."""
        receivers = self.ctx.receivers
        helper: set[Binding] = set()
        inline: set[Binding] = set()
        for call in self.ctx.nodes_of(cst.Call):
            scaler = scaled_backward_scaler(call)
            if scaler is not None:
                binding = receivers.binding(scaler)
                if binding is not None:
                    inline.add(binding)
            helper.update(b for s in self._scaled_by_helper(call) if (b := receivers.binding(s)) is not None)
        return helper, inline

    def _fix(self, clip: cst.Call, scalers: set[Binding]) -> Fix | None:
        statement = statement_of(self.ctx, clip)
        if len(scalers) != 1 or statement is None:
            return None
        (scaler,) = scalers
        optimizers = self._step_targets.get(scaler, set())
        if scaler in self._held:
            return None  # the object's own method steps: where to unscale is the author's to say
        if len(optimizers) != 1 or scaler in self._unscaled:
            return None  # an `unscale_` already there (after the clip) would then run twice and raise
        (optimizer,) = optimizers
        # in a `try`, an exception caught between the inserted `unscale_` and `update()` (a
        # skipped batch) would leave the scaler unscaled: the next `unscale_` would raise
        if not _plain_reference(optimizer) or len(statement.body) != 1 or in_try(self.ctx, statement):
            return None
        if _raises_on_nonfinite(clip):
            return None  # the unscaled Inf of a skipped step would raise in the clip, and the next `unscale_` too
        if not self._always_stepped_after(statement, scaler, optimizer) or self._unscales_elsewhere(scaler):
            return None
        unscale = cst.parse_statement(f"{scaler.name}.unscale_({optimizer})\n")
        unscale = unscale.with_changes(leading_lines=statement.leading_lines)
        moved = statement.with_changes(leading_lines=())
        return Fix({statement: cst.FlattenSentinel([unscale, moved])})

    def _unscales_elsewhere(self, scaler: Binding) -> bool:
        """Whether an `unscale_` may run that this rule did not see on the scaler: on
        another name (a helper's parameter, `log_grads(scaler, opt)`), in a function
        of the project, or in code this file cannot see that is handed the scaler.
        The inserted `unscale_` would then be the second one and raise."""
        unscales, handed = self.ctx.shared(_unscales_and_handed)
        return unscales or any(owner in handed for owner in scaler_owners(scaler.name))

    def _always_stepped_after(self, statement: cst.SimpleStatementLine, scaler: Binding, optimizer: str) -> bool:
        """Whether every run of `statement` is followed, in the same iteration, by
        `S.step(optimizer)` and then `S.update()`, with no jump in between. A second
        `unscale_` before `update()` raises: an `unscale_` inserted where the step is
        skipped (under gradient accumulation, after a `continue`) would break the run."""
        child: cst.CSTNode = statement
        for ancestor in self.ctx.ancestors(statement):
            if type(ancestor) in (cst.IndentedBlock, cst.Module):
                body = list(ancestor.body)  # type: ignore[attr-defined]
                start = next(i for i, node in enumerate(body) if node is child)
                stepped = False
                for end in range(start + 1, len(body)):
                    if self._calls(body[end], scaler, "step", optimizer):
                        if any(_binds(self.ctx, part, optimizer) for part in body[start + 1:end]):
                            return False  # `opt = make_optimizer(model)` after the clip: another object
                        if any(self._may_back_propagate(node) for part in body[start + 1:end]
                               for node in self.ctx.subtree(part)):
                            return False  # a later backward's gradients would reach the step still scaled
                        stepped = True
                    elif stepped and self._calls(body[end], scaler, "update", None):
                        return not any(type(node) in _JUMPS for part in body[start:end + 1]
                                       for node in self.ctx.subtree(part))
            elif type(ancestor) in (cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda):
                return False  # the step must follow within the same iteration or call
            child = ancestor
        return False

    def _may_back_propagate(self, node: cst.CSTNode) -> bool:
        """`node` runs a backward pass: itself, a `backward(...)` method of anything
        (`accelerator.backward(loss)`, `self.backward(loss)`), or a function of the
        project that does."""
        if type(node) is not cst.Call:
            return False
        if is_backward(node) or method_call(node, "backward") is not None:
            return True
        summary = self.ctx.summaries.of_call(node)  # type: ignore[arg-type]
        return summary is not None and summary.does(BACKWARD)

    def _calls(self, statement: cst.CSTNode, scaler: Binding, method: str, optimizer: str | None) -> bool:
        """`statement` is a line that calls `S.method(optimizer)` on the scaler."""
        if type(statement) is not cst.SimpleStatementLine:
            return False
        for node in self.ctx.subtree(statement):
            target = method_call(node, method)
            if target is None or self.ctx.receivers.binding(target) != scaler:
                continue
            if optimizer is None or (node.args and self.ctx.code(node.args[0].value) == optimizer):  # type: ignore[attr-defined]
                return True
        return False


# a generator may be left at its `yield` (an `await`'s task cancelled) and never resumed
_JUMPS = (cst.Continue, cst.Break, cst.Return, cst.Raise, cst.Yield, cst.Await)


def _known_none(ctx: FileContext, node: cst.CSTNode, name: str) -> bool:
    """`node` runs only where `name` is None: in the `else` of `if scaler is not None:`
    (or of `if scaler:`), in the body of `if scaler is None:` (or `if not scaler:`).
    A backward a helper scales only when it is given a scaler was not scaled there."""
    graph = ctx.shared(FlowGraph)
    child = node
    for ancestor in ctx.ancestors(node):
        if type(ancestor) is cst.If and child is not ancestor.test:
            condition = graph.condition(ancestor.test)  # what the flow decides the branch by
            if condition.key == name and condition.polarity == (child is not ancestor.body):
                return True
        if type(ancestor) in (cst.FunctionDef, cst.Lambda, cst.ClassDef):
            return False
        child = ancestor
    return False


def _plain_reference(code: str) -> bool:
    """`opt`, `self.optimizer`: read again by the inserted `unscale_` with no side
    effect (not `next(optimizers)`, `opts[i()]`)."""
    return all(part.isidentifier() for part in code.split("."))


def _unscales_and_handed(ctx: FileContext) -> tuple[bool, frozenset[str]]:
    """Whether the file calls `unscale_` (itself, or through a function of the
    project), and the arguments, as written, of the calls of code it cannot see;
    read once, asked of every scaler."""
    handed: set[str] = set()
    stored = {dotted_name(target.target) for assign in ctx.nodes_of(cst.Assign)
              for target in assign.targets} - {None}  # type: ignore[attr-defined]
    for call in ctx.nodes_of(cst.Call):
        summary = ctx.summaries.of_call(call)  # type: ignore[arg-type]
        if method_call(call, "unscale_") is not None or (summary is not None and summary.does(UNSCALE)):
            return True, frozenset()
        if summary is None:
            handed.update(handed_arguments(ctx, call))  # type: ignore[arg-type]
            # `self.log_grad_norm()`, inherited from a base the file cannot see, has all of
            # `self` (whatever the method calls its instance; named `self` as the scalers' bindings are)
            func = call.func  # type: ignore[attr-defined]
            if (type(func) is cst.Attribute and receiver_method(ctx, func.value) is not None
                    and f"{func.value.value}.{func.attr.value}" not in stored):
                handed.add("self")
    return False, frozenset(handed)


def _binds(ctx: FileContext, statement: cst.CSTNode, name: str) -> bool:
    """`statement` assigns `name` (`opt` or `self.opt`), or a name it starts with."""
    for node in ctx.subtree(statement):
        targets = ([t.target for t in node.targets] if type(node) is cst.Assign  # type: ignore[attr-defined]
                   else [node.target] if type(node) in (cst.AnnAssign, cst.AugAssign, cst.For, cst.NamedExpr) else [])
        for target in targets:
            for part in ctx.subtree(target):
                bound = dotted_name(part) if type(part) in (cst.Name, cst.Attribute) else None
                if bound is not None and (name == bound or name.startswith(bound + ".")):
                    return True
    return False


def _raises_on_nonfinite(clip: cst.Call) -> bool:
    """`clip_grad_norm_(..., error_if_nonfinite=True)`, or a value other than False."""
    for arg in clip.args:
        if arg.keyword is not None and arg.keyword.value == "error_if_nonfinite":
            return not (type(arg.value) is cst.Name and arg.value.value == "False")
    return False


def _written_attributes(ctx: FileContext) -> frozenset[str]:
    """The attributes (as written: `args.amp`) the file sets: assigned, also unpacked or
    annotated, augmented, deleted, or by `setattr(args, "amp", ...)`."""
    written = {ctx.code(part) for node in ctx.nodes_of(cst.Assign, cst.AugAssign, cst.AnnAssign)
               for target in assignment_targets(node) for part in unpacked(target) if type(part) is cst.Attribute}
    written |= {ctx.code(part) for node in ctx.nodes_of(cst.Del)
                for part in unpacked(node.target) if type(part) is cst.Attribute}  # type: ignore[attr-defined]
    for node in ctx.nodes_of(cst.Call):
        if dotted_name(node.func) in ("setattr", "delattr") and len(node.args) >= 2:  # type: ignore[attr-defined]
            named = string_value(node.args[1].value)  # type: ignore[attr-defined]
            if named is not None:
                written.add(f"{ctx.code(node.args[0].value)}.{named}")  # type: ignore[attr-defined]
    return frozenset(written)

