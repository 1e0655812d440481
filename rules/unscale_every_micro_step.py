import libcst as cst

from trainlint.analysis.dataflow import target_names
from trainlint.analysis.flow import Facts
from trainlint.analysis.flowgraph import FlowGraph, assigned_names
from trainlint.analysis.literals import literal_value
from trainlint.analysis.loops import CallFlow, innermost_loop, is_backward, reachable_nodes, runs_on_every_call
from trainlint.analysis.precision import scaler_holder
from trainlint.analysis.receivers import GRAD_SCALER, Binding
from trainlint.analysis.scopes import argument_slots, bound_arguments
from trainlint.analysis.training import code_bodies, method_call
from trainlint.analysis.walk import children, iter_nodes
from trainlint.context import FileContext
from trainlint.rule import Rule
from trainlint.summaries import SCALER_UPDATE, STEP, Summary


class UnscaleEveryMicroStep(Rule):
    """
    ## What it does
    Flags `scaler.unscale_(optimizer)` that can run a second time before
    `scaler.update()`: typically under gradient accumulation, where unscaling
    (and clipping) happens on every micro-step while `scaler.step` and
    `scaler.update()` happen only on every N-th.

    ## Why is this bad?
    A `GradScaler` allows one `unscale_` per optimizer between two
    `update()` calls; the second raises `RuntimeError: unscale_() has already
    been called on this optimizer since the last update()`. Even before it
    crashes, unscaling gradients that are still being accumulated mixes
    unscaled and scaled contributions. Unscale and clip only on the
    micro-step that steps.

    ## Example
    ```python
    import torch
    scaler = torch.amp.GradScaler("cuda")
    for i, (x, y) in enumerate(loader):
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        scaler.scale(loss / accum).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        if (i + 1) % accum == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
    ```

    ## Use instead
    ```python
    scaler.scale(loss / accum).backward()
    if (i + 1) % accum == 0:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
    ```

    ## Fix safety
    No fix: moving the unscale (and the clip with it) under the step's
    condition is a change of structure the author should make.

    ## Limitations
    The `update()` must be in a loop around the `unscale_` (the same one, or
    the step loop around a loop of micro-steps); a loop with no `update()` at
    all is TL104's finding. An `unscale_` of a loop over the optimizers
    (`for opt in optimizers: scaler.unscale_(opt)`) unscales each once per
    pass; the loop around that repeats it when the `update()` there is written
    under a condition (gradient accumulation). A path on which the optimizer
    steps without the scaler (`opt.step()`, a backend's
    `xm.optimizer_step(opt)` in another branch) is not a micro-step and
    does not count. Calls of the file's own functions are followed (a
    trainer's per-step method called from its loop over batches, a helper
    handed the scaler); there an unscale repeats only when the called function
    runs it on every call (one under `if sync:` or after an early `return` may
    follow the caller's step condition, which the linter does not match), and
    an optimizer parameter is the argument each call passes. A function of
    another module that unscales a scaler it is handed on every call, and
    neither steps nor updates it (`unscale_and_clip(scaler, opt, model)`),
    counts as an unscale where it is called. A loss scaler object that holds
    its own `GradScaler` (timm's `NativeScaler`, of the file or of another
    module) and, on every call of the method the loop calls, unscales it while
    it steps and updates only under a flag it is given (`if update_grad:`) is
    reported at that call when the loop gives the flag a value it changes
    (`update_grad=(i + 1) % accum == 0`); timm's own, which unscales under the
    flag too, is not. One that unscales under a value it is given alone (`if
    clip_grad is not None:`), not under the flag, is reported at a call that
    gives it one (`clip_grad=args.clip_grad`, not `None`); the call may be
    made in a function the loop defines on each pass and calls (timm's `def
    _backward(_loss):`), reading the loop's flag. So is a method of such an object that unscales its
    scaler on every call and neither steps nor updates it (`amp.backward(loss,
    opt, params)`), where the loop calls it on every micro-step and another of
    its methods steps and updates (`amp.step(opt)`) every N-th; an object whose
    scaler the file also reaches itself (`amp.scaler.update()`) is not
    followed. Scalers the linter cannot tell are `GradScaler`s are not checked.
    """

    code = "TL108"
    name = "unscale-every-micro-step"
    severity = "error"
    message = "`scaler.unscale_()` can run again before `scaler.update()` (every micro-step, while the update runs every N-th): the second call raises; unscale only on the step that steps"
    triggers = ("unscale_",)
    bad = (
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for i, (x, y) in enumerate(loader):\n"
        "    with torch.autocast('cuda'):\n"
        "        loss = criterion(model(x), y) / accum\n"
        "    scaler.scale(loss).backward()\n"
        "    scaler.unscale_(optimizer)  # expect: TL108\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "    if (i + 1) % accum == 0:\n"
        "        scaler.step(optimizer)\n"
        "        scaler.update()\n"
        "        optimizer.zero_grad()\n",
        # accumulation by `continue`, placed after the unscale
        "from torch.cuda.amp import GradScaler\n"
        "def train(model, loader, opt, accum):\n"
        "    scaler = GradScaler()\n"
        "    for step, batch in enumerate(loader, 1):\n"
        "        scaler.scale(model(batch)).backward()\n"
        "        scaler.unscale_(opt)  # expect: TL108\n"
        "        if step % accum:\n"
        "            continue\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n"
        "        opt.zero_grad()\n",
        "import torch as th\n"
        "class Pretrainer:\n"
        "    def __init__(self):\n"
        "        self.scaler = th.amp.GradScaler('cuda')\n"
        "    def run(self, data):\n"
        "        micro = 0\n"
        "        while micro < self.max_micro_steps:\n"
        "            self.scaler.scale(self.model(next(data))).backward()\n"
        "            micro += 1\n"
        "            self.scaler.unscale_(self.optimizer)  # expect: TL108\n"
        "            th.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)\n"
        "            if micro % self.accum == 0:\n"
        "                self.scaler.step(self.optimizer)\n"
        "                self.scaler.update()\n",
        # two optimizers: each unscale is its own finding
        "from torch import amp\n"
        "scaler = amp.GradScaler('cuda')\n"
        "for i, batch in enumerate(loader):\n"
        "    scaler.scale(loss_fn(batch)).backward()\n"
        "    scaler.unscale_(opt_enc)  # expect: TL108\n"
        "    scaler.unscale_(opt_dec)  # expect: TL108\n"
        "    if i % 8 == 7:\n"
        "        scaler.step(opt_enc)\n"
        "        scaler.step(opt_dec)\n"
        "        scaler.update()\n",
        # a loop of micro-steps inside the step loop (nanoGPT's layout), unscaling in each
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for step in range(max_steps):\n"
        "    for micro_step in range(accum_steps):\n"
        "        with torch.autocast('cuda', dtype=torch.float16):\n"
        "            loss = model(next(batches)) / accum_steps\n"
        "        scaler.scale(loss).backward()\n"
        "        scaler.unscale_(optimizer)  # expect: TL108\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "    scaler.step(optimizer)\n"
        "    scaler.update()\n"
        "    optimizer.zero_grad(set_to_none=True)\n",
        # a trainer's per-step method, called from the loop of another method
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, opt):\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "        self.opt = opt\n"
        "        self.micro_step = 0\n"
        "    def train_step(self, batch):\n"
        "        self.micro_step += 1\n"
        "        self.scaler.scale(self.model(batch) / self.accum).backward()\n"
        "        self.scaler.unscale_(self.opt)  # expect: TL108\n"
        "        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)\n"
        "        if self.micro_step % self.accum == 0:\n"
        "            self.scaler.step(self.opt)\n"
        "            self.scaler.update()\n"
        "    def fit(self, loader):\n"
        "        for batch in loader:\n"
        "            self.train_step(batch)\n",
        # a helper that unscales and clips, called on every micro-step
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "def clip(optimizer):\n"
        "    scaler.unscale_(optimizer)  # expect: TL108\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "for i, batch in enumerate(loader):\n"
        "    scaler.scale(model(batch)).backward()\n"
        "    clip(optimizer)\n"
        "    if (i + 1) % accum == 0:\n"
        "        scaler.step(optimizer)\n"
        "        scaler.update()\n",
        # Swin's layout: only the accumulating branch repeats its unscale; the other
        # branch's, reached from the epoch loop around the call, steps every time
        "import torch\n"
        "def train_one_epoch(model, loader, optimizer, scaler, accum):\n"
        "    for i, batch in enumerate(loader):\n"
        "        loss = model(batch)\n"
        "        if accum > 1:\n"
        "            scaler.scale(loss / accum).backward()\n"
        "            scaler.unscale_(optimizer)  # expect: TL108\n"
        "            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)\n"
        "            if (i + 1) % accum == 0:\n"
        "                scaler.step(optimizer)\n"
        "                scaler.update()\n"
        "        else:\n"
        "            scaler.scale(loss).backward()\n"
        "            scaler.unscale_(optimizer)\n"
        "            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)\n"
        "            scaler.step(optimizer)\n"
        "            scaler.update()\n"
        "def main(model, loader, optimizer, accum):\n"
        "    scaler = torch.amp.GradScaler('cuda')\n"
        "    for epoch in range(100):\n"
        "        train_one_epoch(model, loader, optimizer, scaler, accum)\n",
        # one clipping helper for two optimizers, called on every micro-step
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "def clip(model, opt):\n"
        "    scaler.unscale_(opt)  # expect: TL108\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "for i, x in enumerate(loader):\n"
        "    scaler.scale(g(x).mean() + d(x).mean()).backward()\n"
        "    clip(g, opt_g)\n"
        "    clip(d, opt_d)\n"
        "    if (i + 1) % accum == 0:\n"
        "        scaler.step(opt_g)\n"
        "        scaler.step(opt_d)\n"
        "        scaler.update()\n",
        # a loop over the optimizers unscales each on every micro-step, while the update runs every N-th
        "import torch\n"
        "def train(encoder, proj, loader, criterion, accum):\n"
        "    optimizers = [torch.optim.Adam(encoder.parameters()), torch.optim.Adam(proj.parameters())]\n"
        "    scaler = torch.amp.GradScaler(\"cuda\")\n"
        "    for i, (x, y) in enumerate(loader):\n"
        "        with torch.autocast(\"cuda\"):\n"
        "            loss = criterion(proj(encoder(x)), y)\n"
        "        scaler.scale(loss / accum).backward()\n"
        "        for opt in optimizers:\n"
        "            scaler.unscale_(opt)  # expect: TL108\n"
        "        if (i + 1) % accum == 0:\n"
        "            for opt in optimizers:\n"
        "                scaler.step(opt)\n"
        "            scaler.update()\n"
        "            for opt in optimizers:\n"
        "                opt.zero_grad()\n",
        # a helper of the file, handed the scaler, unscales on every micro-step
        "import torch\n"
        "\n"
        "\n"
        "def unscale_and_clip(scaler, optimizer, model):\n"
        "    scaler.unscale_(optimizer)  # expect: TL108\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "\n"
        "\n"
        "def train(model, loader, optimizer, accum):\n"
        "    scaler = torch.amp.GradScaler(\"cuda\")\n"
        "    for i, x in enumerate(loader):\n"
        "        with torch.autocast(\"cuda\"):\n"
        "            loss = model(x).mean()\n"
        "        scaler.scale(loss / accum).backward()\n"
        "        unscale_and_clip(scaler, optimizer, model)\n"
        "        if (i + 1) % accum == 0:\n"
        "            scaler.step(optimizer)\n"
        "            scaler.update()\n"
        "            optimizer.zero_grad()\n",
        # a loss scaler object that unscales on every call and updates only when told to,
        # told so on every N-th micro-step
        "import torch\n"
        "class LossScaler:\n"
        "    def __init__(self):\n"
        "        self._scaler = torch.amp.GradScaler(\"cuda\")\n"
        "    def __call__(self, loss, optimizer, parameters, update_grad=True):\n"
        "        self._scaler.scale(loss).backward()\n"
        "        self._scaler.unscale_(optimizer)\n"
        "        torch.nn.utils.clip_grad_norm_(parameters, 1.0)\n"
        "        if update_grad:\n"
        "            self._scaler.step(optimizer)\n"
        "            self._scaler.update()\n"
        "def train(model, loader, optimizer, accum):\n"
        "    loss_scaler = LossScaler()\n"
        "    for i, x in enumerate(loader):\n"
        "        loss = model(x).mean() / accum\n"
        "        loss_scaler(loss, optimizer, model.parameters(), update_grad=(i + 1) % accum == 0)  # expect: TL108\n"
        "        if (i + 1) % accum == 0:\n"
        "            optimizer.zero_grad()\n",
        # an object's backward method unscales its scaler on every micro-step, its step
        # method steps and updates on every N-th
        "import torch\n"
        "class AmpBackward:\n"
        "    def __init__(self):\n"
        "        self.scaler = torch.amp.GradScaler(\"cuda\")\n"
        "    def backward(self, loss, optimizer, parameters):\n"
        "        self.scaler.scale(loss).backward()\n"
        "        self.scaler.unscale_(optimizer)\n"
        "        torch.nn.utils.clip_grad_norm_(parameters, 1.0)\n"
        "    def step(self, optimizer):\n"
        "        self.scaler.step(optimizer)\n"
        "        self.scaler.update()\n"
        "def train(model, loader, optimizer, accum):\n"
        "    amp = AmpBackward()\n"
        "    for i, x in enumerate(loader):\n"
        "        amp.backward(model(x).mean() / accum, optimizer, model.parameters())  # expect: TL108\n"
        "        if (i + 1) % accum == 0:\n"
        "            amp.step(optimizer)\n"
        "            optimizer.zero_grad()\n",
        # a loss scaler that unscales whenever it is given a clipping value, and updates only
        # when told to: timm's layout, the call made in a closure the loop defines
        "import torch\n"
        "class ClippingScaler:\n"
        "    def __init__(self):\n"
        "        self._scaler = torch.amp.GradScaler(\"cuda\")\n"
        "    def __call__(self, loss, optimizer, clip_grad=None, parameters=None, create_graph=False,\n"
        "                 need_update=True):\n"
        "        self._scaler.scale(loss).backward(create_graph=create_graph)\n"
        "        if clip_grad is not None:\n"
        "            self._scaler.unscale_(optimizer)\n"
        "            torch.nn.utils.clip_grad_norm_(parameters, clip_grad)\n"
        "        if need_update:\n"
        "            self._scaler.step(optimizer)\n"
        "            self._scaler.update()\n"
        "def train(model, loader, optimizer, args):\n"
        "    loss_scaler = ClippingScaler()\n"
        "    for i, x in enumerate(loader):\n"
        "        need_update = (i + 1) % args.accum == 0\n"
        "        def _backward(_loss):\n"
        "            loss_scaler(_loss, optimizer, clip_grad=args.clip_grad, parameters=model.parameters(),  # expect: TL108\n"
        "                        create_graph=False, need_update=need_update)\n"
        "        _backward(model(x).mean() / args.accum)\n"
        "        if need_update:\n"
        "            optimizer.zero_grad()\n",
    )
    good = (
        # unscale and clip only on the micro-step that steps
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for i, (x, y) in enumerate(loader):\n"
        "    scaler.scale(criterion(model(x), y) / accum).backward()\n"
        "    if (i + 1) % accum == 0:\n"
        "        scaler.unscale_(optimizer)\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "        scaler.step(optimizer)\n"
        "        scaler.update()\n"
        "        optimizer.zero_grad()\n",
        # no accumulation: one unscale per update
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for x, y in loader:\n"
        "    scaler.scale(criterion(model(x), y)).backward()\n"
        "    scaler.unscale_(optimizer)\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "    scaler.step(optimizer)\n"
        "    scaler.update()\n",
        # the step is conditional, the update is not
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for x, y in loader:\n"
        "    scaler.scale(criterion(model(x), y)).backward()\n"
        "    scaler.unscale_(optimizer)\n"
        "    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "    if torch.isfinite(norm):\n"
        "        scaler.step(optimizer)\n"
        "    scaler.update()\n",
        # the same condition guards the unscale and, later, the update
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for i, (x, y) in enumerate(loader):\n"
        "    scaler.scale(criterion(model(x), y)).backward()\n"
        "    if (i + 1) % accum == 0:\n"
        "        scaler.unscale_(optimizer)\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "    log(i)\n"
        "    if (i + 1) % accum == 0:\n"
        "        scaler.step(optimizer)\n"
        "        scaler.update()\n",
        # accumulation by `continue` before the unscale
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for step, batch in enumerate(loader, 1):\n"
        "    scaler.scale(model(batch)).backward()\n"
        "    if step % accum != 0:\n"
        "        continue\n"
        "    scaler.unscale_(opt)\n"
        "    scaler.step(opt)\n"
        "    scaler.update()\n",
        # the branch that skips the update steps the optimizer another way
        # (a backend that is never used with the scaler): not accumulation
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for step, batch in enumerate(loader):\n"
        "    scaler.scale(model(batch)).backward()\n"
        "    if (step + 1) % accum == 0:\n"
        "        if use_amp:\n"
        "            scaler.unscale_(optimizer)\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "        if on_tpu:\n"
        "            xm.optimizer_step(optimizer)\n"
        "        elif use_amp:\n"
        "            scaler.step(optimizer)\n"
        "            scaler.update()\n"
        "        else:\n"
        "            optimizer.step()\n",
        # the unscale's condition rules out the branch that skips the update
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for x, y in loader:\n"
        "    scaler.scale(criterion(model(x), y)).backward()\n"
        "    if max_norm > 0 and not deepspeed:\n"
        "        scaler.unscale_(optimizer)\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)\n"
        "    if deepspeed:\n"
        "        engine.step()\n"
        "    else:\n"
        "        scaler.step(optimizer)\n"
        "        scaler.update()\n",
        # a project's own loss scaler with its own rules
        "from mylib import DynamicLossScaler\n"
        "scaler = DynamicLossScaler()\n"
        "for i, batch in enumerate(loader):\n"
        "    scaler.unscale_(opt)\n"
        "    if i % 4 == 0:\n"
        "        scaler.update()\n",
        # each optimizer unscaled once per step, in a loop over them
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for step in range(max_steps):\n"
        "    for micro_step in range(accum_steps):\n"
        "        scaler.scale(model(next(batches)) / accum_steps).backward()\n"
        "    for opt in optimizers:\n"
        "        scaler.unscale_(opt)\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "    for opt in optimizers:\n"
        "        scaler.step(opt)\n"
        "        opt.zero_grad()\n"
        "    scaler.update()\n",
        # the optimizers unscaled by index: a loop with no backward pass is no micro-step
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for x in loader:\n"
        "    scaler.scale(model(x).mean()).backward()\n"
        "    for i in range(len(optimizers)):\n"
        "        opt = optimizers[i]\n"
        "        scaler.unscale_(opt)\n"
        "        scaler.step(opt)\n"
        "        opt.zero_grad()\n"
        "    scaler.update()\n",
        # a trainer's per-step method that unscales under the step's condition
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, opt):\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "        self.opt = opt\n"
        "        self.micro_step = 0\n"
        "    def train_step(self, batch):\n"
        "        self.micro_step += 1\n"
        "        self.scaler.scale(self.model(batch) / self.accum).backward()\n"
        "        if self.micro_step % self.accum == 0:\n"
        "            self.scaler.unscale_(self.opt)\n"
        "            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)\n"
        "            self.scaler.step(self.opt)\n"
        "            self.scaler.update()\n"
        "    def fit(self, loader):\n"
        "        for batch in loader:\n"
        "            self.train_step(batch)\n",
        # a method called once per optimizer step: it unscales, steps and updates
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, opt):\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "        self.opt = opt\n"
        "    def optimizer_step(self):\n"
        "        self.scaler.unscale_(self.opt)\n"
        "        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)\n"
        "        self.scaler.step(self.opt)\n"
        "        self.scaler.update()\n"
        "    def fit(self, loader):\n"
        "        for i, batch in enumerate(loader):\n"
        "            self.scaler.scale(self.model(batch) / self.accum).backward()\n"
        "            if (i + 1) % self.accum == 0:\n"
        "                self.optimizer_step()\n",
        # a helper that unscales, called twice outside any loop: each call steps and updates
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "def unscale_and_clip(optimizer):\n"
        "    scaler.unscale_(optimizer)\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "def train_once(batch):\n"
        "    scaler.scale(model(batch)).backward()\n"
        "    unscale_and_clip(optimizer)\n"
        "    scaler.step(optimizer)\n"
        "    scaler.update()\n"
        "    scaler.scale(model(batch)).backward()\n"
        "    unscale_and_clip(optimizer)\n"
        "    scaler.step(optimizer)\n"
        "    scaler.update()\n",
        # allennlp: the clipping helper unscales only if the rescaling helper has not
        "import torch\n"
        "from torch.cuda.amp.grad_scaler import OptState\n"
        "class Trainer:\n"
        "    def __init__(self):\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "    def rescale_gradients(self):\n"
        "        self.scaler.unscale_(self.optimizer)\n"
        "        return torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_norm)\n"
        "    def clip_gradient(self):\n"
        "        state = self.scaler._per_optimizer_states[id(self.optimizer)]\n"
        "        if state['stage'] is not OptState.UNSCALED:\n"
        "            self.scaler.unscale_(self.optimizer)\n"
        "        torch.nn.utils.clip_grad_value_(self.model.parameters(), self.max_value)\n"
        "    def train_epoch(self, loader):\n"
        "        for batch in loader:\n"
        "            self.scaler.scale(self.model(batch)).backward()\n"
        "            self.rescale_gradients()\n"
        "            self.clip_gradient()\n"
        "            self.scaler.step(self.optimizer)\n"
        "            self.scaler.update()\n",
        # the helper unscales under a condition its caller passes: the caller's step
        # condition here, but the conditions of one call are not carried to the next
        "import torch\n"
        "class Trainer:\n"
        "    def __init__(self, model, opt, accum):\n"
        "        self.model, self.opt, self.accum = model, opt, accum\n"
        "        self.scaler = torch.amp.GradScaler('cuda')\n"
        "    def _backward(self, loss, sync):\n"
        "        self.scaler.scale(loss).backward()\n"
        "        if sync:\n"
        "            self.scaler.unscale_(self.opt)\n"
        "            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)\n"
        "    def fit(self, loader):\n"
        "        for i, x in enumerate(loader):\n"
        "            sync = (i + 1) % self.accum == 0\n"
        "            self._backward(self.model(x).mean(), sync)\n"
        "            if sync:\n"
        "                self.scaler.step(self.opt)\n"
        "                self.scaler.update()\n"
        "                self.opt.zero_grad()\n",
        # the same, with the helper returning early on the micro-steps that accumulate
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "def backward(loss, optimizer, last_micro_step):\n"
        "    scaler.scale(loss).backward()\n"
        "    if not last_micro_step:\n"
        "        return\n"
        "    scaler.unscale_(optimizer)\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "for i, x in enumerate(loader):\n"
        "    backward(model(x).mean(), optimizer, (i + 1) % accum == 0)\n"
        "    if (i + 1) % accum == 0:\n"
        "        scaler.step(optimizer)\n"
        "        scaler.update()\n",
        # one clipping helper for two optimizers: each unscaled once per update
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "def clip(model, opt):\n"
        "    scaler.unscale_(opt)\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "def train(g, d, og, od, loader):\n"
        "    for x in loader:\n"
        "        scaler.scale(g(x).mean() + d(x).mean()).backward()\n"
        "        clip(g, og)\n"
        "        clip(d, od)\n"
        "        scaler.step(og)\n"
        "        scaler.step(od)\n"
        "        scaler.update()\n",
        # the same loop over the optimizers once per step, the update after it on every iteration
        "import torch\n"
        "def train(encoder, proj, loader, criterion):\n"
        "    optimizers = [torch.optim.Adam(encoder.parameters()), torch.optim.Adam(proj.parameters())]\n"
        "    scaler = torch.amp.GradScaler(\"cuda\")\n"
        "    for x, y in loader:\n"
        "        with torch.autocast(\"cuda\"):\n"
        "            loss = criterion(proj(encoder(x)), y)\n"
        "        scaler.scale(loss).backward()\n"
        "        for opt in optimizers:\n"
        "            scaler.unscale_(opt)\n"
        "        torch.nn.utils.clip_grad_norm_(encoder.parameters(), 1.0)\n"
        "        for opt in optimizers:\n"
        "            scaler.step(opt)\n"
        "        scaler.update()\n"
        "        for opt in optimizers:\n"
        "            opt.zero_grad()\n",
        # the helper that unscales runs only on the micro-step that steps
        "import torch\n"
        "\n"
        "\n"
        "def unscale_and_clip(scaler, optimizer, model):\n"
        "    scaler.unscale_(optimizer)\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "\n"
        "\n"
        "def train(model, loader, optimizer, accum):\n"
        "    scaler = torch.amp.GradScaler(\"cuda\")\n"
        "    for i, x in enumerate(loader):\n"
        "        with torch.autocast(\"cuda\"):\n"
        "            loss = model(x).mean()\n"
        "        scaler.scale(loss / accum).backward()\n"
        "        if (i + 1) % accum == 0:\n"
        "            unscale_and_clip(scaler, optimizer, model)\n"
        "            scaler.step(optimizer)\n"
        "            scaler.update()\n"
        "            optimizer.zero_grad()\n",
        # timm's loss scaler: it unscales only on the call that updates
        "import torch\n"
        "class NativeScaler:\n"
        "    def __init__(self):\n"
        "        self._scaler = torch.amp.GradScaler(\"cuda\")\n"
        "    def __call__(self, loss, optimizer, clip_grad=None, parameters=None, need_update=True):\n"
        "        self._scaler.scale(loss).backward()\n"
        "        if need_update:\n"
        "            if clip_grad is not None:\n"
        "                self._scaler.unscale_(optimizer)\n"
        "                torch.nn.utils.clip_grad_norm_(parameters, clip_grad)\n"
        "            self._scaler.step(optimizer)\n"
        "            self._scaler.update()\n"
        "def train(model, loader, optimizer, accum):\n"
        "    loss_scaler = NativeScaler()\n"
        "    for i, x in enumerate(loader):\n"
        "        need_update = (i + 1) % accum == 0\n"
        "        loss_scaler(model(x).mean() / accum, optimizer, 1.0, model.parameters(), need_update)\n"
        "        if need_update:\n"
        "            optimizer.zero_grad()\n",
        # a loss scaler that unscales on every call, told to update on every call
        "import torch\n"
        "class LossScaler:\n"
        "    def __init__(self):\n"
        "        self._scaler = torch.amp.GradScaler(\"cuda\")\n"
        "    def __call__(self, loss, optimizer, parameters, update_grad=True):\n"
        "        self._scaler.scale(loss).backward()\n"
        "        self._scaler.unscale_(optimizer)\n"
        "        torch.nn.utils.clip_grad_norm_(parameters, 1.0)\n"
        "        if update_grad:\n"
        "            self._scaler.step(optimizer)\n"
        "            self._scaler.update()\n"
        "def train(model, loader, optimizer, args):\n"
        "    loss_scaler = LossScaler()\n"
        "    for x in loader:\n"
        "        loss_scaler(model(x).mean(), optimizer, model.parameters(), update_grad=not args.frozen)\n"
        "        loss_scaler(model(x).mean(), optimizer, model.parameters())\n"
        "        optimizer.zero_grad()\n",
        # the same object's backward and step on every iteration
        "import torch\n"
        "class AmpBackward:\n"
        "    def __init__(self):\n"
        "        self.scaler = torch.amp.GradScaler(\"cuda\")\n"
        "    def backward(self, loss, optimizer, parameters):\n"
        "        self.scaler.scale(loss).backward()\n"
        "        self.scaler.unscale_(optimizer)\n"
        "        torch.nn.utils.clip_grad_norm_(parameters, 1.0)\n"
        "    def step(self, optimizer):\n"
        "        self.scaler.step(optimizer)\n"
        "        self.scaler.update()\n"
        "def train(model, loader, optimizer):\n"
        "    amp = AmpBackward()\n"
        "    for x in loader:\n"
        "        amp.backward(model(x).mean(), optimizer, model.parameters())\n"
        "        amp.step(optimizer)\n"
        "        optimizer.zero_grad()\n",
        # the same loss scaler given no clipping value: it never unscales
        "import torch\n"
        "class ClippingScaler:\n"
        "    def __init__(self):\n"
        "        self._scaler = torch.amp.GradScaler(\"cuda\")\n"
        "    def __call__(self, loss, optimizer, clip_grad=None, parameters=None, create_graph=False,\n"
        "                 need_update=True):\n"
        "        self._scaler.scale(loss).backward(create_graph=create_graph)\n"
        "        if clip_grad is not None:\n"
        "            self._scaler.unscale_(optimizer)\n"
        "            torch.nn.utils.clip_grad_norm_(parameters, clip_grad)\n"
        "        if need_update:\n"
        "            self._scaler.step(optimizer)\n"
        "            self._scaler.update()\n"
        "def train(model, loader, optimizer, args):\n"
        "    loss_scaler = ClippingScaler()\n"
        "    for i, x in enumerate(loader):\n"
        "        need_update = (i + 1) % args.accum == 0\n"
        "        def _backward(_loss):\n"
        "            loss_scaler(_loss, optimizer, clip_grad=None, parameters=model.parameters(),\n"
        "                        need_update=need_update)\n"
        "        _backward(model(x).mean() / args.accum)\n"
        "        loss_scaler(model(x).mean(), optimizer, need_update=need_update)\n"
        "        if need_update:\n"
        "            optimizer.zero_grad()\n",
        # timm's loss scaler called in a closure the loop defines: it unscales only on the call that updates
        "import torch\n"
        "class NativeScaler:\n"
        "    def __init__(self):\n"
        "        self._scaler = torch.amp.GradScaler(\"cuda\")\n"
        "    def __call__(self, loss, optimizer, clip_grad=None, parameters=None, need_update=True):\n"
        "        self._scaler.scale(loss).backward()\n"
        "        if need_update:\n"
        "            if clip_grad is not None:\n"
        "                self._scaler.unscale_(optimizer)\n"
        "                torch.nn.utils.clip_grad_norm_(parameters, clip_grad)\n"
        "            self._scaler.step(optimizer)\n"
        "            self._scaler.update()\n"
        "def train(model, loader, optimizer, args):\n"
        "    loss_scaler = NativeScaler()\n"
        "    for i, x in enumerate(loader):\n"
        "        need_update = (i + 1) % args.accum == 0\n"
        "        def _backward(_loss):\n"
        "            loss_scaler(_loss, optimizer, clip_grad=args.clip_grad, parameters=model.parameters(),\n"
        "                        need_update=need_update)\n"
        "        _backward(model(x).mean() / args.accum)\n"
        "        if need_update:\n"
        "            optimizer.zero_grad()\n",
        # a loss scaler that unscales under `if clip_grad:`, called with a zero clip: it never unscales
        "import torch\n"
        "class Scaler:\n"
        "    def __init__(self):\n"
        "        self._scaler = torch.amp.GradScaler(\"cuda\")\n"
        "    def __call__(self, loss, optimizer, clip_grad=None, parameters=None, need_update=True):\n"
        "        self._scaler.scale(loss).backward()\n"
        "        if clip_grad:\n"
        "            self._scaler.unscale_(optimizer)\n"
        "            torch.nn.utils.clip_grad_norm_(parameters, clip_grad)\n"
        "        if need_update:\n"
        "            self._scaler.step(optimizer)\n"
        "            self._scaler.update()\n"
        "def train(model, loader, optimizer, accum):\n"
        "    loss_scaler = Scaler()\n"
        "    for i, x in enumerate(loader):\n"
        "        need_update = (i + 1) % accum == 0\n"
        "        loss_scaler(model(x).mean() / accum, optimizer, clip_grad=0.0, parameters=model.parameters(),\n"
        "                    need_update=need_update)\n"
        "        if need_update:\n"
        "            optimizer.zero_grad()\n",
    )

    def finish(self) -> None:
        # each unscale that can repeat, with the calls the walk went through to reach it
        self._repeated: dict[cst.Call, set[tuple[cst.CSTNode, ...]]] = {}
        self._every_call: dict[cst.CSTNode, bool] = {}  # see `runs_on_every_call`
        # calls of another module's function that unscale a scaler they are handed, and of
        # a method that unscales its object's own (by the object), with the calls of the
        # objects' methods that may update their scalers
        self._object_updates: dict[cst.CSTNode, cst.BaseExpression] = {}
        self._unscaling = unscaling = self._unscaling_calls()
        updates = self._object_updates
        events = _is_event if not unscaling else (
            lambda node: _is_event(node) or node in unscaling or node in updates)
        flow = self._flow = CallFlow(self.ctx, self._transfer, events=events, by_call_site=True)
        for body in code_bodies(self.ctx):
            flow.run_if_events(body)
        del self._flow  # it holds this rule's transfer: no cycle outlives the walk
        for call, call_chains in self._repeated.items():
            if any(self._updated_in_same_loop(call, chain) for chain in call_chains):
                self.report(call)
        for call in self._wrapper_calls():
            if call not in self._repeated:
                self.report(call)

    def _wrapper_calls(self) -> list[cst.Call]:
        """Calls in a loop of a method the walk does not enter (another module's, or one
        run on an object of a class of the file: `loss_scaler(loss, opt, update_grad=...)`)
        that unscales its instance's GradScaler on every call and updates it only under
        a flag it is given (see `Summary.updates_if`), where the call gives that flag a
        value the loop changes: the calls that skip the update leave the next call's
        unscale to raise. So is one that unscales only when given a value it is handed here
        (`if clip_grad is not None:`, see `Summary.unscales_given`; `clip_grad=args.clip_grad`,
        not `clip_grad=None` nor nothing)."""
        found: list[cst.Call] = []
        summaries = self.ctx.summaries
        assigned = self.ctx.shared(FlowGraph).assigned
        for call in self.ctx.nodes_of(cst.Call):
            if self.ctx.local_callee(call) is not None:
                continue  # walked: the flow judges it
            summary = summaries.of_unwalked_call(call)
            if summary is None or not summary.updates_if or not (
                    any(u.startswith("self.") for u in summary.unscales) or _given(call, summary)):  # type: ignore[arg-type]
                continue
            loop = innermost_loop(self.ctx, call)
            closure = self.ctx.enclosing_function(call) if loop is None else None
            if closure is not None:
                # a function the loop defines anew on each pass (timm's `def _backward(_loss):`),
                # reading the loop's flag: its own names are not the loop's
                loop = innermost_loop(self.ctx, closure)
            if loop is None:
                continue
            bound = assigned(loop)
            if closure is not None:
                bound -= assigned_names(self.ctx, closure) | {
                    p.name.value for p in (*closure.params.posonly_params, *closure.params.params,
                                           *closure.params.kwonly_params)}
            for slot, arg in argument_slots(call):  # type: ignore[arg-type]
                if summary.slot(slot) in summary.updates_if and _read_names(arg.value) & bound:
                    found.append(call)  # type: ignore[arg-type]
                    break
        return found

    def _unscaling_calls(self) -> dict[cst.CSTNode, cst.BaseExpression]:
        """Calls of a function of another module that unscales a scaler it is handed on
        every call and neither steps nor updates it (`unscale_and_clip(scaler, opt,
        model)`, see `Summary.unscales`), with the scaler each hands it."""
        found: dict[cst.CSTNode, cst.BaseExpression] = {}
        summaries = self.ctx.summaries
        objects: list[tuple[cst.Call, Summary]] = []  # method calls on an object of the project
        held: set[str] = set()  # the objects that stand for their scalers, as written
        for call in self.ctx.nodes_of(cst.Call):
            summary = summaries.of_unwalked_call(call)
            if summary is not None and type(call.func) is cst.Attribute:  # type: ignore[attr-defined]
                objects.append((call, summary))  # type: ignore[arg-type]
            if summary is None or not summary.unscales or summary.does(SCALER_UPDATE) or summary.does(STEP):
                continue
            if type(call.func) is cst.Attribute and any(u.startswith("self.") for u in summary.unscales):  # type: ignore[attr-defined]
                # `amp.backward(loss, opt)` unscaling `self._scaler` on every call: the object
                # stands for its scaler, which only its own methods update
                obj = scaler_holder(self.ctx, call, ("update", "step", "unscale_"), self_too=True)  # type: ignore[arg-type]
                if obj is not None:
                    found[call] = obj
                    held.add(self.ctx.code(obj))
                continue
            for slot, arg in argument_slots(call):  # type: ignore[arg-type]
                if summary.slot(slot) in summary.unscales and self.ctx.receivers.is_kind(arg.value, GRAD_SCALER):
                    found[call] = arg.value
                    break
        for call, summary in objects:
            if self.ctx.code(call.func.value) in held and (  # type: ignore[attr-defined]
                    summary.does(SCALER_UPDATE) or summary.does(STEP)):
                self._object_updates[call] = call.func.value  # type: ignore[attr-defined]
        return found

    def _transfer(self, facts: Facts, node: cst.CSTNode) -> Facts:
        call_chain = tuple(self._flow.call_sites)
        stepped = _stepped_elsewhere(node)
        if stepped is not None:
            # the optimizer steps without the scaler on this path: not a micro-step
            stepped_text = self.ctx.code(_given_argument(self.ctx, stepped, call_chain))
            return frozenset(fact for fact in facts if fact[1] != stepped_text)
        receivers = self.ctx.receivers
        updated = self._object_updates.get(node)
        if updated is not None:
            # a method of an object that unscales its own scaler elsewhere, stepping or updating it
            binding = receivers.binding(updated)
            return frozenset(fact for fact in facts if fact[0] != binding) if binding is not None else facts
        handed = self._unscaling.get(node)
        if handed is not None:
            # another module's helper unscales: each call of it unscales what it is given
            binding = receivers.binding(_given_argument(self.ctx, handed, call_chain))
            if binding is None:
                return facts
            if any(fact[:2] == (binding, self.ctx.code(node)) for fact in facts) and (
                    not call_chain or self._runs_on_every_call(node, call_chain)):  # type: ignore[arg-type]
                self._repeated.setdefault(node, set()).add(call_chain)  # type: ignore[arg-type]
            return facts | {(binding, self.ctx.code(node), node)}
        scaler = method_call(node, "unscale_", "update")
        if scaler is None or not receivers.is_kind(scaler, GRAD_SCALER):
            return facts
        # a scaler handed to a function of the file is the caller's (`unscale_and_clip(scaler, ...)`)
        binding = receivers.binding(_given_argument(self.ctx, scaler, call_chain))
        if binding is None:
            return facts
        if method_call(node, "update") is not None:
            return frozenset(fact for fact in facts if fact[0] != binding)
        if not node.args:  # type: ignore[attr-defined]
            return facts
        optimizer = self.ctx.code(_given_argument(self.ctx, node.args[0].value, call_chain))  # type: ignore[attr-defined]
        # reached through calls, an earlier unscale counts only if it is this one, run on
        # every call of the functions that reach it: the conditions a callee's paths took
        # are not carried from one call to the next, so the unscale of another branch
        # (`if accum > 1: ... else: ...`) or one under the caller's own step condition
        # (`_backward(loss, sync)` unscaling `if sync:`) may look reached where it is not
        if any(fact[:2] == (binding, optimizer) and (not call_chain or fact[2] is node) for fact in facts) and (
                not call_chain or self._runs_on_every_call(node, call_chain)):  # type: ignore[arg-type]
            self._repeated.setdefault(node, set()).add(call_chain)  # type: ignore[arg-type]
        return facts | {(binding, optimizer, node)}

    def _runs_on_every_call(self, unscale: cst.Call, call_chain: tuple[cst.CSTNode, ...]) -> bool:
        """Nothing in the functions the walk entered can skip the unscale: each call
        after the first of `call_chain`, and the unscale, runs on every call of its function."""
        calls = (*call_chain[1:], unscale)
        for call in calls:
            if call not in self._every_call:
                self._every_call[call] = runs_on_every_call(self.ctx, call)  # type: ignore[arg-type]
        return all(self._every_call[call] for call in calls)

    def _updated_in_same_loop(self, unscale: cst.Call, call_chain: tuple[cst.CSTNode, ...]) -> bool:
        """A loop around the unscale also calls `update()` on the same scaler: the
        innermost (conditionally, or the unscale would not repeat), or one around a
        loop of micro-steps (`for micro in range(accum): ...; scaler.unscale_(opt)`,
        then the step and update once per outer iteration). Past the unscale's own
        function the loops are those around the calls that reached it (`call_chain`,
        outermost first: a trainer's per-step method called from its loop over
        batches). A loop over the optimizers unscaled (`for opt in optimizers:
        scaler.unscale_(opt)`) unscales each once per pass of it."""
        receivers = self.ctx.receivers
        handed = self._unscaling.get(unscale)
        scaler = handed if handed is not None else unscale.func.value  # type: ignore[attr-defined]
        binding: Binding | None = receivers.binding(_given_argument(self.ctx, scaler, call_chain))
        # what it unscales: the optimizer argument, or any argument of another module's helper
        # (a test or a sum handed beside them is no optimizer: `(i + 1) % accum == 0`)
        given = [arg.value for arg in unscale.args if type(arg.value) in (cst.Name, cst.Attribute, cst.Subscript)
                 ] if handed is not None else [a.value for a in unscale.args[:1]]
        unscaled = {n.value for value in given for n in iter_nodes(value) if type(n) is cst.Name}
        over_optimizers = False
        for node in (unscale, *reversed(call_chain)):
            for ancestor in self.ctx.ancestors(node):
                if type(ancestor) is cst.FunctionDef:
                    break  # on to the call that ran this function, if any
                if type(ancestor) in (cst.ClassDef, cst.Lambda):
                    return False
                if type(ancestor) in (cst.For, cst.While):
                    if type(ancestor) is cst.For and unscaled & target_names(ancestor.target):
                        over_optimizers = True  # each unscaled once per pass: the loop around it decides
                        continue
                    iteration = list(reachable_nodes(self.ctx, ancestor.body))
                    updates = [n for n in iteration if (target := method_call(n, "update") or self._object_updates.get(n))
                               is not None and receivers.binding(target) == binding]
                    if updates:
                        # after a loop over the optimizers, each is unscaled again only on an
                        # iteration of this loop that may end without the update (written in
                        # this function under a condition); one out of sight may run always
                        return not over_optimizers or not any(
                            self._every_iteration_or_unknown(update, ancestor) for update in updates)
                    if not any(is_backward(n) for n in iteration):
                        return False  # no micro-steps: a loop over optimizers by index, parameter groups
        return False

    def _every_iteration_or_unknown(self, update: cst.CSTNode, loop: cst.For | cst.While) -> bool:
        """`update` runs on every iteration of `loop` (nothing between them can skip it),
        or in another function, where the linter does not tell."""
        if self.ctx.enclosing_function(update) is not self.ctx.enclosing_function(loop):
            return True
        for ancestor in self.ctx.ancestors(update):
            if ancestor is loop:
                return True
            if type(ancestor) in (cst.If, cst.For, cst.While, cst.Try, cst.TryStar, cst.IfExp):
                return False
        return True

def _given(call: cst.Call, summary: Summary) -> bool:
    """`call` gives one of the params the method unscales under (`Summary.unscales_given`)
    a value that may be set: not `None`, `False`, a zero or an empty string written out
    (which `if clip_grad:` reads as unset), and unpacks nothing."""
    if not summary.unscales_given or any(arg.star for arg in call.args):
        return False
    return any(summary.slot(slot) in summary.unscales_given and not _unset(arg.value)
               for slot, arg in argument_slots(call))


def _unset(value: cst.BaseExpression) -> bool:
    """`None`, `False`, `0`, `0.0` or `""` written out."""
    if type(value) is cst.Name:
        return value.value in ("None", "False")
    if type(value) is cst.Integer:
        return int(value.value, 0) == 0
    if type(value) is cst.Float:
        return float(value.value) == 0
    return literal_value(value) in ("", b"")


def _read_names(expr: cst.CSTNode) -> set[str]:
    """The bare names `expr` reads: `args` of `args.update`, not the attribute, nor what it calls."""
    if type(expr) is cst.Name:
        return {expr.value}
    if type(expr) is cst.Attribute:
        return _read_names(expr.value)
    kids = [arg.value for arg in expr.args] if type(expr) is cst.Call else children(expr)  # type: ignore[attr-defined]
    return {name for kid in kids for name in _read_names(kid)}


def _is_event(node: cst.CSTNode) -> bool:
    """Every node `UnscaleEveryMicroStep._transfer` can react to."""
    return method_call(node, "unscale_", "update") is not None or _stepped_elsewhere(node) is not None


def _given_argument(ctx: FileContext, expr: cst.BaseExpression, call_chain: tuple[cst.CSTNode, ...]) -> cst.BaseExpression:
    """What the calls the walk went through gave `expr`, where it names a parameter of
    its function that the function never rebinds: `clip(g, opt_g)` and then
    `clip(d, opt_d)` unscale two optimizers with one `scaler.unscale_(opt)`."""
    for call in reversed(call_chain):
        func = ctx.local_callee(call)
        if type(expr) is not cst.Name or func is None or ctx.enclosing_function(expr) is not func:
            break
        binding = ctx.receivers.binding(expr)
        given = dict(bound_arguments(ctx, call, func)[0]).get(expr.value)  # type: ignore[arg-type]
        if given is None or binding is None or ctx.receivers.assigned(binding):
            break
        expr = given
    return expr


def _stepped_elsewhere(node: cst.CSTNode) -> cst.BaseExpression | None:
    """The optimizer of `opt.step()` or of a backend's `xm.optimizer_step(opt)`:
    a step that does not go through the scaler."""
    receiver = method_call(node, "step")
    if receiver is not None and not node.args:  # type: ignore[attr-defined]
        return receiver
    if (method_call(node, "optimizer_step") is not None or
            (type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "optimizer_step")):
        args = node.args  # type: ignore[attr-defined]
        return args[0].value if args and args[0].keyword is None and not args[0].star else None
    return None
