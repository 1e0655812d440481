from typing import Iterable

import libcst as cst

from trainlint.analysis.backward_losses import backward_target, computed_here, function_flags, given_slots, runs_when
from trainlint.analysis.hook_runs import hook_runs, unscaled_backward
from trainlint.analysis.loops import is_backward
from trainlint.analysis.precision import FLOAT16, with_precision
from trainlint.analysis.receivers import GRAD_SCALER, constructor_kind
from trainlint.analysis.scopes import assignment_targets, dotted_name
from trainlint.analysis.training import code_bodies, method_call, scaled_backward_scaler
from trainlint.analysis.walk import iter_nodes, only
from trainlint.context import FileContext
from trainlint.rule import Rule
from trainlint.summaries import Summary, needs_through

# Loss-scaling helpers that wrap a GradScaler (timm's NativeScaler, apex's
# `amp.scale_loss`, a project's `loss_scaler(...)`) are recognised by name: a
# file that mentions one is doing loss scaling somewhere, and stays silent.
_SCALING_WORDS = ("scaler", "scale_loss")


class Fp16WithoutGradScaler(Rule):
    """
    ## What it does
    Flags `.backward()` on a value computed under float16 autocast in
    training code that never scales the loss: no `GradScaler` is built or
    used in its function (or in its class, for a method).
    CUDA autocast computes in float16 unless told otherwise, so
    `torch.autocast("cuda")`, `torch.amp.autocast("cuda")` and
    `torch.cuda.amp.autocast()` without `dtype=` all count.

    ## Why is this bad?
    float16 cannot hold magnitudes below about 6e-8: many gradients of a small
    loss round to zero on the way back, and large activations overflow to
    inf. Training then stalls or diverges with no error. A `GradScaler`
    multiplies the loss before `backward()` so the gradients stay in range,
    divides them back before the step, and skips steps that overflowed.
    bfloat16 has float32's range and needs none of this.

    ## Example
    ```python
    import torch
    with torch.autocast("cuda"):          # float16 by default on CUDA
        loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    ```

    ## Use instead
    ```python
    scaler = torch.amp.GradScaler("cuda")
    with torch.autocast("cuda", dtype=torch.float16):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    ```
    or `dtype=torch.bfloat16`, which needs no scaler.

    ## Fix safety
    No fix: choosing between a scaler and bfloat16 depends on the hardware.

    ## Limitations
    Only values computed under a `with` autocast block of the same function
    (or assigned from such values there, a trainer's `self.output` included;
    a value assigned without autocast in the `else:` of an `if use_amp:` does
    not undo one assigned under it in the `if`) are followed, the block
    entered directly (also as an arm of an `if` expression, `with
    torch.autocast("cuda") if amp else nullcontext():`, where the other arm
    counts as no autocast) or through a variable of the function holding the
    autocast (`ctx = torch.autocast("cuda")`, also `ctx = nullcontext()` then
    `if use_amp: ctx = torch.autocast("cuda")`, or one of several autocasts
    a variable or a dict literal picked by a key holds, `with {"bf16": ...,
    "fp16": ...}[precision]:` or `.get(precision, nullcontext())`, where the
    float16 one counts; a dict bound
    at module level is not read), or through a name the function does not
    bind that the module assigns an autocast once (`amp_ctx =
    torch.autocast(...)` at top level), or a call of a `functools.partial`
    of autocast (`amp_autocast = partial(torch.autocast, device_type="cuda",
    dtype=torch.float16)`, then `with amp_autocast():`), or returned by a function of the project
    (of the file or another module) that computes it under such a block
    (`with torch.autocast("cuda"): return criterion(model(x), y)`, or a value
    computed from a name assigned there: `return F.mse_loss(pred.float(), y)`,
    as the gradient still flows back through float16; not from
    `pred.detach()`, `pred.argmax(-1)` or a comparison, which carry no
    gradient; of a returned tuple, only a name assigned there counts, as
    which item the caller back-propagates is not followed), unless that
    function names a scaler or runs the `return` without grad. Where that
    block runs only under a flag parameter of the function (`if
    mixed_precision:`, with `pred` assigned without autocast in the `else:`;
    an early return under `if not amp:`; or the block's own `enabled=amp`,
    read as `if amp:`), only a call that passes it a constant taking that
    path, or leaves it to such a default, counts (`loss_step(...,
    mixed_precision=True)`), also a constant held in a name the caller binds
    to it alone (`use_amp = True`, then `amp=use_amp`) or in a module-level
    name assigned once that nothing rebinds (`USE_AMP = True`, `USE_AMP:
    bool = True`; not one a function may rebind through `global`, nor one a
    `match` capture or an `except ... as` binds again), also through a function of the
    project that returns the call and hands the flag on (`def run(model, x,
    amp): return step(model, x, amp)`); not one that hands on
    a flag of its own, nor one unpacked from `**kwargs` (what the dict holds
    is not followed). A value computed from a name assigned under another
    test (`if amp is False: return ...` above the block, `enabled=cfg.amp`)
    is not followed. Autocast applied as a decorator on `forward` is not
    followed. A function of the file called in a float16 block that computes
    a loss and back-propagates it itself (an L-BFGS `closure()` run as `with
    torch.autocast(..., dtype=torch.float16): return closure()`) is reported
    at that backward (a tensor's own: `accelerator.backward(loss)` or a
    DeepSpeed engine's scales the loss itself in a float16 run), where the call's constant arguments (or the defaults it
    leaves) let it run and the function has no autocast of its own; what that
    function calls in turn, and a function of another module, are not
    followed. A dtype
    chosen at run time among values that include float16 counts as float16:
    a command-line flag whose `choices` include it (`getattr(torch,
    args.dtype)`), a conditional (`torch.float16 if ... else ...`) or a table
    indexed by a flag. A dtype or device type held in a variable that cannot
    be resolved otherwise (a parameter, a config object) is not flagged, nor
    is training code that mentions a scaler object, since the scaling may
    happen through it (a scaler built in another module and passed in
    counts): the class of a method, the function of a nested one, or
    anywhere in the module's own top-level code (a scaler there may serve
    every function).

    What an override returns under float16 autocast (a subclass's
    `training_step`) that a base class's loop back-propagates through another
    hook with no GradScaler (no hook of the loop, as the subclass resolves
    them, scales the loss or steps through a scaler) is reported at the
    override's autocast, naming the loop, whatever other classes of the module
    do, and so is one the loop back-propagates itself (`loss.backward()`) with
    no scaler; a loop that uses a scaler (or hands one to a function), a hook
    out of reach, or a loss the loop hands to a call before its backward
    (apex's `with amp.scale_loss(loss, optimizer) as scaled_loss:`, a wrapper
    that may scale it) leaves it alone.
    """

    code = "TL103"
    name = "fp16-without-grad-scaler"
    severity = "error"
    message = "backward through float16 autocast without a GradScaler: small gradients underflow to zero; scale the loss with `torch.amp.GradScaler` or use bfloat16"
    triggers = ("autocast",)
    bad = (
        # autocast or nothing, chosen by device; the dtype from a table indexed by a flag
        "from contextlib import nullcontext\n"
        "import torch\n"
        "ptdtype = {'float32': torch.float32, 'bfloat16': torch.bfloat16, 'float16': torch.float16}[args.dtype]\n"
        "ctx = torch.amp.autocast(device_type=device_type, dtype=ptdtype) if device_type == 'cuda' else nullcontext()\n"
        "for step in range(args.steps):\n"
        "    with ctx:\n"
        "        _, loss = model(x, y)\n"
        "    loss.backward()  # expect: TL103\n"
        "    optimizer.step()\n",
        # the dtype is a command-line choice that includes float16
        "import argparse\n"
        "import torch\n"
        "parser = argparse.ArgumentParser()\n"
        "parser.add_argument('--dtype', choices=['float16', 'bfloat16'], default='bfloat16')\n"
        "args = parser.parse_args()\n"
        "dtype = getattr(torch, args.dtype)\n"
        "def train(model, loader, optimizer):\n"
        "    for x in loader:\n"
        "        with torch.autocast('cuda', dtype=dtype):\n"
        "            loss = model(x).sum()\n"
        "        loss.backward()  # expect: TL103\n"
        "        optimizer.step()\n"
        "def finetune(model, loader, optimizer, args):\n"
        "    half = torch.bfloat16 if args.bf16 else torch.float16\n"
        "    for x in loader:\n"
        "        with torch.autocast('cuda', dtype=half):\n"
        "            loss = model(x).sum()\n"
        "        loss.backward()  # expect: TL103\n"
        "        optimizer.step()\n",
        "import torch\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    with torch.amp.autocast('cuda'):\n"
        "        loss = criterion(model(x), y)\n"
        "    loss.backward()  # expect: TL103\n"
        "    optimizer.step()\n",
        "from torch.cuda.amp import autocast as ac\n"
        "def train(model, loader, opt, accum):\n"
        "    for i, batch in enumerate(loader):\n"
        "        with ac():\n"
        "            out = model(batch)\n"
        "        loss = out.loss / accum\n"
        "        loss.backward()  # expect: TL103\n"
        "        if (i + 1) % accum == 0:\n"
        "            opt.step()\n"
        "            opt.zero_grad()\n",
        "import torch as th\n"
        "class Trainer:\n"
        "    def training_step(self, batch):\n"
        "        with th.autocast(device_type='cuda', dtype=th.float16):\n"
        "            outputs = self.model(**batch)\n"
        "        outputs.loss.backward()  # expect: TL103\n"
        "        self.optimizer.step()\n",
        "from torch.cuda import amp\n"
        "for x, y in loader:\n"
        "    with amp.autocast(enabled=args.amp):\n"
        "        loss = criterion(model(x), y)\n"
        "        loss.backward()  # expect: TL103\n"
        "    optimizer.step()\n",
        "import torch\n"
        "AMP_DTYPE = torch.half\n"
        "amp_ctx = torch.autocast('cuda', dtype=AMP_DTYPE)\n"
        "for x, y in loader:\n"
        "    with amp_ctx:\n"
        "        logits = model(x)\n"
        "    (criterion(logits, y) * 0.5).backward()  # expect: TL103\n"
        "    optimizer.step()\n",
        # autocast made optional by a branch: the `if` path is float16
        "import torch\n"
        "def train(model, loader, use_amp):\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x in loader:\n"
        "        if use_amp:\n"
        "            with torch.autocast('cuda'):\n"
        "                loss = model(x).sum()\n"
        "        else:\n"
        "            loss = model(x).sum()\n"
        "        opt.zero_grad()\n"
        "        loss.backward()  # expect: TL103\n"
        "        opt.step()\n",
        # a trainer keeps the output on `self`
        "import torch\n"
        "class SRModel:\n"
        "    def optimize_parameters(self):\n"
        "        self.optimizer.zero_grad()\n"
        "        with torch.autocast('cuda'):\n"
        "            self.output = self.net(self.lq)\n"
        "        loss = (self.output - self.gt).abs().mean()\n"
        "        loss.backward()  # expect: TL103\n"
        "        self.optimizer.step()\n",
        # the autocast context kept on the instance
        "import torch\n"
        "class Runner:\n"
        "    def __init__(self, model, opt):\n"
        "        self.model, self.opt = model, opt\n"
        "        self.ctx = torch.autocast(device_type='cuda', dtype=torch.float16)\n"
        "    def fit(self, loader):\n"
        "        for x in loader:\n"
        "            with self.ctx:\n"
        "                loss = self.model(x).mean()\n"
        "            self.opt.zero_grad()\n"
        "            loss.backward()  # expect: TL103\n"
        "            self.opt.step()\n",
        # the context is nothing, or autocast when a flag asks for it (vissl's tests)
        "import contextlib\n"
        "import torch\n"
        "def train(model, loader, optimizer, use_amp):\n"
        "    for x, y in loader:\n"
        "        context = contextlib.nullcontext()\n"
        "        if use_amp:\n"
        "            context = torch.autocast('cuda')\n"
        "        with context:\n"
        "            loss = torch.nn.functional.cross_entropy(model(x), y)\n"
        "        optimizer.zero_grad()\n"
        "        loss.backward()  # expect: TL103\n"
        "        optimizer.step()\n",
        # the autocast picked from a dict by a precision flag: one of them is float16
        "import contextlib\n"
        "import torch\n"
        "\n"
        "\n"
        "def train(model, loader, opt, precision):\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        with {\n"
        "            \"bf16\": torch.autocast(\"cuda\", dtype=torch.bfloat16),\n"
        "            \"fp16\": torch.autocast(\"cuda\", dtype=torch.float16),\n"
        "            \"fp32\": contextlib.nullcontext(),\n"
        "        }[precision]:\n"
        "            loss = model(x, y)\n"
        "        loss.backward()  # expect: TL103\n"
        "        opt.step()\n",
        # bf16 or fp16 by a flag: the fp16 run has no scaler
        "import torch\n"
        "\n"
        "\n"
        "def train(model, loader, opt, use_bf16):\n"
        "    if use_bf16:\n"
        "        ctx = torch.autocast(\"cuda\", dtype=torch.bfloat16)\n"
        "    else:\n"
        "        ctx = torch.autocast(\"cuda\", dtype=torch.float16)\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        with ctx:\n"
        "            loss = model(x, y)\n"
        "        loss.backward()  # expect: TL103\n"
        "        opt.step()\n",
        # a dict of autocasts bound once, indexed in the with
        "import torch\n"
        "\n"
        "\n"
        "def train(model, loader, opt, precision):\n"
        "    contexts = {\n"
        "        \"bf16\": torch.autocast(\"cuda\", dtype=torch.bfloat16),\n"
        "        \"fp16\": torch.autocast(\"cuda\", dtype=torch.float16),\n"
        "    }\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        with contexts[precision]:\n"
        "            loss = model(x, y)\n"
        "        loss.backward()  # expect: TL103\n"
        "        opt.step()\n",
        # the autocast picked with `.get()` and a default
        "import contextlib\n"
        "import torch\n"
        "\n"
        "\n"
        "def train(model, loader, opt, precision):\n"
        "    ctxs = {\"amp\": torch.autocast(\"cuda\"), \"none\": contextlib.nullcontext()}\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        with ctxs.get(precision, contextlib.nullcontext()):\n"
        "            loss = model(x, y)\n"
        "        loss.backward()  # expect: TL103\n"
        "        opt.step()\n",
        # a trainer class of the file scales its loss; another function's fp16 training does not
        "import torch\n"
        "\n"
        "\n"
        "class GANTrainer:\n"
        "    def __init__(self, D):\n"
        "        self.D = D\n"
        "        self.opt_d = torch.optim.Adam(D.parameters())\n"
        "        self.scaler = torch.amp.GradScaler(\"cuda\")\n"
        "\n"
        "    def step_d(self, real):\n"
        "        self.opt_d.zero_grad()\n"
        "        with torch.autocast(\"cuda\", dtype=torch.float16):\n"
        "            loss = self.D(real).mean()\n"
        "        self.scaler.scale(loss).backward()\n"
        "        self.scaler.step(self.opt_d)\n"
        "        self.scaler.update()\n"
        "\n"
        "\n"
        "def finetune(model, optimizer, loader):\n"
        "    for x in loader:\n"
        "        optimizer.zero_grad()\n"
        "        with torch.autocast(\"cuda\", dtype=torch.float16):\n"
        "            loss = model(x).mean()\n"
        "        loss.backward()  # expect: TL103\n"
        "        optimizer.step()\n",
        # autocast or no context, chosen in the `with` item (nnU-Net's idiom); the float16
        # run is the one that needs the scaler
        "import contextlib\n"
        "import torch\n"
        "def train(network, loader, optimizer, device):\n"
        "    for batch in loader:\n"
        "        optimizer.zero_grad()\n"
        "        with torch.autocast(\"cuda\") if device.type == \"cuda\" else contextlib.nullcontext():\n"
        "            loss = network(batch).mean()\n"
        "        loss.backward()  # expect: TL103\n"
        "        optimizer.step()\n",
        # the loss comes from a helper that computes it under float16 autocast
        "import torch\n"
        "\n"
        "\n"
        "def compute_loss(model, criterion, x, y):\n"
        "    with torch.autocast(\"cuda\", dtype=torch.float16):\n"
        "        return criterion(model(x), y)\n"
        "\n"
        "\n"
        "def train(model, criterion, loader, optimizer):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        loss = compute_loss(model, criterion, x, y)\n"
        "        loss.backward()  # expect: TL103\n"
        "        optimizer.step()\n",
        # autocast through a partial of it, and a context object built once at module level
        "from functools import partial\n"
        "import torch\n"
        "amp_ctx = torch.autocast(\"cuda\", dtype=torch.float16)\n"
        "def train(model, loader, optimizer):\n"
        "    amp_autocast = partial(torch.autocast, device_type=\"cuda\", dtype=torch.float16)\n"
        "    for x, y in loader:\n"
        "        with amp_autocast():\n"
        "            loss = model(x, y)\n"
        "        loss.backward()  # expect: TL103\n"
        "        with amp_ctx:\n"
        "            loss = model(x, y)\n"
        "        loss.backward()  # expect: TL103\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n",
        # autocast's function held in a name, picked by a flag, then called
        "from contextlib import suppress\n"
        "import torch\n"
        "def train(probe, criterion, loader, optimizer, amp=True):\n"
        "    autocast = torch.cuda.amp.autocast if amp else suppress\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        with autocast():\n"
        "            loss = criterion(probe(x), y)\n"
        "        loss.backward()  # expect: TL103\n"
        "        optimizer.step()\n",
        # a helper computes the prediction under float16 autocast when a flag asks for it, and
        # returns a loss of it cast back to float32: the gradient still runs through float16
        "import torch\n"
        "import torch.nn.functional as F\n"
        "\n"
        "\n"
        "def denoise_loss(unet, noisy, target, mixed_precision=False):\n"
        "    if mixed_precision:\n"
        "        with torch.autocast(\"cuda\"):\n"
        "            pred = unet(noisy)\n"
        "    else:\n"
        "        pred = unet(noisy)\n"
        "    pred = pred * 0.5\n"
        "    loss = F.mse_loss(pred.float(), target.float())\n"
        "    return loss\n"
        "\n"
        "\n"
        "def head_loss(model, x, y):\n"
        "    with torch.autocast(\"cuda\", dtype=torch.float16):\n"
        "        logits = model(x)\n"
        "    return (logits.float() - y).abs().mean() * 0.1\n"
        "\n"
        "\n"
        "def tune(unet, model, loader, opt):\n"
        "    for noisy, target in loader:\n"
        "        opt.zero_grad()\n"
        "        loss = denoise_loss(unet, noisy, target, mixed_precision=True)\n"
        "        loss.backward()  # expect: TL103\n"
        "        head_loss(model, noisy, target).backward()  # expect: TL103\n"
        "        opt.step()\n",
        # the flag taking the float16 path is a constant the caller holds in a name of its own
        "import torch\n"
        "import torch.nn.functional as F\n"
        "\n"
        "\n"
        "def step(model, x, y, amp=False):\n"
        "    if amp:\n"
        "        with torch.autocast(\"cuda\"):\n"
        "            return F.mse_loss(model(x), y)\n"
        "    return F.mse_loss(model(x), y)\n"
        "\n"
        "\n"
        "def train(model, loader, opt):\n"
        "    use_amp = True\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        step(model, x, y, amp=use_amp).backward()  # expect: TL103\n"
        "        opt.step()\n",
        # the float16 path taken: autocast `enabled=` by a flag passed true, or past an early
        # return under `if not amp:`
        "import torch\n"
        "import torch.nn.functional as F\n"
        "\n"
        "\n"
        "def masked_step(model, x, y, amp=False):\n"
        "    with torch.autocast(\"cuda\", enabled=amp):\n"
        "        pred = model(x)\n"
        "    return F.mse_loss(pred.float(), y)\n"
        "\n"
        "\n"
        "def guarded_step(model, x, y, amp=False):\n"
        "    if not amp:\n"
        "        return F.mse_loss(model(x), y)\n"
        "    with torch.autocast(\"cuda\"):\n"
        "        pred = model(x)\n"
        "    return F.mse_loss(pred.float(), y)\n"
        "\n"
        "\n"
        "def train(model, loader, opt):\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        masked_step(model, x, y, amp=True).backward()  # expect: TL103\n"
        "        guarded_step(model, x, y, amp=True).backward()  # expect: TL103\n"
        "        opt.step()\n",
        # the flag passed true by a module constant that nothing rebinds, or through a
        # wrapper that returns the step's loss and hands the flag on
        "import torch\n"
        "import torch.nn.functional as F\n"
        "\n"
        "USE_AMP = True\n"
        "\n"
        "\n"
        "def step(model, x, y, amp=False):\n"
        "    if amp:\n"
        "        with torch.autocast(\"cuda\"):\n"
        "            return F.mse_loss(model(x), y)\n"
        "    return F.mse_loss(model(x), y)\n"
        "\n"
        "\n"
        "def run(model, x, y, amp=False):\n"
        "    return step(model, x, y, amp)\n"
        "\n"
        "\n"
        "def train(model, loader, opt):\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        step(model, x, y, amp=USE_AMP).backward()  # expect: TL103\n"
        "        run(model, x, y, amp=True).backward()  # expect: TL103\n"
        "        opt.step()\n",
        # the module constant written with its type
        "import torch\n"
        "import torch.nn.functional as F\n"
        "\n"
        "USE_AMP: bool = True\n"
        "\n"
        "\n"
        "def step(model, x, y, amp=False):\n"
        "    if amp:\n"
        "        with torch.autocast(\"cuda\"):\n"
        "            return F.mse_loss(model(x), y)\n"
        "    return F.mse_loss(model(x), y)\n"
        "\n"
        "\n"
        "def train(model, loader, opt):\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        step(model, x, y, amp=USE_AMP).backward()  # expect: TL103\n"
        "        opt.step()\n",
        # an L-BFGS closure of a physics-informed net, run by another under float16 autocast:
        # its own loss and backward are computed there; a step helper called under autocast too
        "import torch\n"
        "\n"
        "\n"
        "def fit(net, points, optimizer, mixed):\n"
        "    def closure():\n"
        "        optimizer.zero_grad()\n"
        "        residual = net(points).pow(2).mean()\n"
        "        residual.backward()  # expect: TL103\n"
        "        return residual\n"
        "\n"
        "    def half_closure():\n"
        "        with torch.autocast(\"cuda\", dtype=torch.float16):\n"
        "            return closure()\n"
        "\n"
        "    for _ in range(500):\n"
        "        optimizer.step(half_closure if mixed else closure)\n"
        "\n"
        "\n"
        "def train_step(model, x, opt, update=True):\n"
        "    loss = model(x).mean()\n"
        "    if update:\n"
        "        loss.backward()  # expect: TL103\n"
        "        opt.step()\n"
        "\n"
        "\n"
        "def train(model, loader, opt):\n"
        "    for x in loader:\n"
        "        opt.zero_grad()\n"
        "        with torch.autocast(\"cuda\"):\n"
        "            train_step(model, x, opt)\n",
        # an inner autocast of the block that is float16 too
        "import torch\n"
        "def closure(net, x):\n"
        "    loss = net(x).mean()\n"
        "    loss.backward()  # expect: TL103\n"
        "    return loss\n"
        "def fit(net, x):\n"
        "    with torch.autocast(\"cuda\", dtype=torch.float16):\n"
        "        with torch.autocast(\"cuda\", dtype=torch.float16, cache_enabled=False):\n"
        "            closure(net, x)\n",
        # an override that a base class's loop runs (its line is reported)
        'import torch\n'
        'class Trainer:\n'
        '    def training_step(self, x):\n'
        '        return self.model(x).mean()\n'
        '    def backward(self, loss):\n'
        '        loss.backward()\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            loss = self.training_step(x)\n'
        '            self.optimizer.zero_grad()\n'
        '            self.backward(loss)\n'
        '            self.optimizer.step()\n'
        'class Fp16Trainer(Trainer):\n'
        '    def training_step(self, x):\n'
        '        with torch.autocast("cuda", dtype=torch.float16):  # expect: TL103\n'
        '            return self.model(x).mean()\n',
        # the loop rebinds the loss only after back-propagating it, and scales nothing
        'import torch\n'
        'class Trainer:\n'
        '    def training_step(self, x):\n'
        '        return self.model(x).mean()\n'
        '    def backward(self, loss):\n'
        '        loss.backward()\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            loss = self.training_step(x)\n'
        '            self.optimizer.zero_grad()\n'
        '            self.backward(loss)\n'
        '            self.optimizer.step()\n'
        '            loss = loss.detach()\n'
        '            self.losses.append(loss)\n'
        'class Fp16Trainer(Trainer):\n'
        '    def training_step(self, x):\n'
        '        with torch.autocast("cuda", dtype=torch.float16):  # expect: TL103\n'
        '            return self.model(x).mean()\n',
        # the loop back-propagates what the override returns itself, with no scaler
        'import torch\n'
        'class Trainer:\n'
        '    def training_step(self, x):\n'
        '        return self.model(x).mean()\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            self.optimizer.zero_grad()\n'
        '            loss = self.training_step(x)\n'
        '            loss.backward()\n'
        '            self.optimizer.step()\n'
        'class Fp16Trainer(Trainer):\n'
        '    def training_step(self, x):\n'
        '        with torch.autocast("cuda", dtype=torch.float16):  # expect: TL103\n'
        '            return self.model(x).mean()\n',
        # a `with` that takes nothing of the loss leaves the loop's own backward plain
        'import torch\n'
        'class Trainer:\n'
        '    def training_step(self, x):\n'
        '        return self.model(x).mean()\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            self.optimizer.zero_grad()\n'
        '            loss = self.training_step(x)\n'
        '            with torch.autograd.set_detect_anomaly(True):\n'
        '                loss.backward()\n'
        '            self.optimizer.step()\n'
        'class Fp16Trainer(Trainer):\n'
        '    def training_step(self, x):\n'
        '        with torch.autocast("cuda", dtype=torch.float16):  # expect: TL103\n'
        '            return self.model(x).mean()\n',
    )
    good = (
        # the name is assigned again in float32 before this backward
        "import torch\n"
        "def train(model, x, y, optimizer):\n"
        "    logits, loss = model(x, y)\n"
        "    loss.backward()\n"
        "    for step in range(10):\n"
        "        with torch.autocast('cuda', dtype=torch.bfloat16):\n"
        "            logits, loss = model(x, y)\n"
        "        loss.backward()\n"
        "    with torch.autocast('cuda'):\n"
        "        logits, loss = model(x, y)\n"
        "    logits, loss = model.float()(x, y)\n"
        "    loss.backward()\n",
        # a command-line choice without float16
        "import argparse\n"
        "import torch\n"
        "parser = argparse.ArgumentParser()\n"
        "parser.add_argument('--dtype', choices=['bfloat16', 'float32'])\n"
        "args = parser.parse_args()\n"
        "def train(model, loader, optimizer):\n"
        "    for x in loader:\n"
        "        with torch.autocast('cuda', dtype=getattr(torch, args.dtype)):\n"
        "            loss = model(x).sum()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n",
        # bfloat16 has float32's range: no scaler needed
        "import torch\n"
        "for x, y in loader:\n"
        "    with torch.amp.autocast('cuda', dtype=torch.bfloat16):\n"
        "        loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        # float16 with a GradScaler
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda')\n"
        "for x, y in loader:\n"
        "    with torch.autocast('cuda'):\n"
        "        loss = criterion(model(x), y)\n"
        "    scaler.scale(loss).backward()\n"
        "    scaler.step(optimizer)\n"
        "    scaler.update()\n",
        # CPU autocast defaults to bfloat16
        "import torch\n"
        "with torch.autocast('cpu'):\n"
        "    loss = criterion(model(x), y)\n"
        "loss.backward()\n",
        # the dtype is chosen at run time: cannot tell
        "import torch\n"
        "def train(model, x, y, amp_dtype):\n"
        "    with torch.autocast('cuda', dtype=amp_dtype):\n"
        "        loss = model(x, y)\n"
        "    loss.backward()\n",
        # autocast switched off
        "from torch.cuda.amp import autocast\n"
        "with autocast(enabled=False):\n"
        "    loss = model(x)\n"
        "loss.backward()\n",
        # a function of the file that happens to be called autocast
        "import contextlib\n"
        "@contextlib.contextmanager\n"
        "def autocast():\n"
        "    yield\n"
        "with autocast():\n"
        "    loss = model(x)\n"
        "loss.backward()\n",
        # float16 only for evaluation; training runs in float32
        "import torch\n"
        "loss = criterion(model(x), y)\n"
        "loss.backward()\n"
        "with torch.no_grad(), torch.autocast('cuda'):\n"
        "    val_loss = criterion(model(vx), vy)\n",
        # a scaler wrapper (timm's NativeScaler) does the scaling
        "import torch\n"
        "with torch.autocast('cuda'):\n"
        "    loss = criterion(model(x), y)\n"
        "if loss_scaler is not None:\n"
        "    loss_scaler(loss, optimizer)\n"
        "else:\n"
        "    loss.backward()\n",
        # the device type is only known at run time
        "import torch\n"
        "with torch.autocast(device.type):\n"
        "    loss = model(x)\n"
        "loss.backward()\n",
        # the float16 value of a debugging branch is replaced on every path before the backward
        "import torch\n"
        "def train(model, loader, opt, debug):\n"
        "    for x in loader:\n"
        "        if debug:\n"
        "            with torch.autocast('cuda'):\n"
        "                loss = model(x).sum()\n"
        "            print(loss.item())\n"
        "        loss = model(x).sum()\n"
        "        opt.zero_grad()\n"
        "        loss.backward()\n"
        "        opt.step()\n",
        # the context is nothing, or an autocast that needs no scaler: bfloat16, or on the CPU
        "import contextlib\n"
        "import torch\n"
        "def train(model, loader, optimizer, use_amp):\n"
        "    for x, y in loader:\n"
        "        context = contextlib.nullcontext()\n"
        "        if use_amp:\n"
        "            context = torch.autocast('cuda', dtype=torch.bfloat16)\n"
        "        with context:\n"
        "            loss = torch.nn.functional.cross_entropy(model(x), y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "def train_cpu(model, loader, optimizer, use_amp):\n"
        "    for x, y in loader:\n"
        "        context = contextlib.nullcontext()\n"
        "        if use_amp:\n"
        "            context = torch.autocast('cpu')\n"
        "        with context:\n"
        "            loss = torch.nn.functional.cross_entropy(model(x), y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n",
        # the context is a float16 autocast or a bfloat16 one: either may run, the flag decides
        "import torch\n"
        "def train(model, loader, optimizer, use_bf16):\n"
        "    for x, y in loader:\n"
        "        context = torch.autocast('cuda', dtype=torch.bfloat16)\n"
        "        if not use_bf16:\n"
        "            context = torch.autocast('cuda', dtype=amp_dtype)\n"
        "        with context:\n"
        "            loss = torch.nn.functional.cross_entropy(model(x), y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n",
        # a dict of contexts with no float16 autocast in it
        "import contextlib\n"
        "import torch\n"
        "\n"
        "CONTEXTS = {\n"
        "    \"bf16\": torch.autocast(\"cuda\", dtype=torch.bfloat16),\n"
        "    \"fp32\": contextlib.nullcontext(),\n"
        "}\n"
        "\n"
        "\n"
        "def train(model, loader, opt, precision):\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        with CONTEXTS[precision]:\n"
        "            loss = model(x, y)\n"
        "        loss.backward()\n"
        "        opt.step()\n",
        # bfloat16 autocast or no context, chosen in the `with` item; a dtype it cannot read
        "import contextlib\n"
        "import torch\n"
        "def train(network, loader, optimizer, amp, dtype):\n"
        "    for batch in loader:\n"
        "        with (torch.autocast(\"cuda\", dtype=torch.bfloat16) if amp else contextlib.nullcontext()):\n"
        "            loss = network(batch).mean()\n"
        "        loss.backward()\n"
        "        with torch.autocast(\"cuda\", dtype=dtype) if amp else contextlib.nullcontext():\n"
        "            loss = network(batch).mean()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n",
        # a helper returns a loss computed in bfloat16, one in float16 the caller scales, one in float16 only for evaluation
        "import torch\n"
        "\n"
        "\n"
        "def bf16_loss(model, x):\n"
        "    with torch.autocast(\"cuda\", dtype=torch.bfloat16):\n"
        "        return model(x).mean()\n"
        "\n"
        "\n"
        "def half_loss(model, x):\n"
        "    with torch.autocast(\"cuda\", dtype=torch.float16):\n"
        "        return model(x).mean()\n"
        "\n"
        "\n"
        "def train(model, loader, opt):\n"
        "    for x in loader:\n"
        "        opt.zero_grad()\n"
        "        bf16_loss(model, x).backward()\n"
        "        opt.step()\n"
        "\n"
        "\n"
        "def train_scaled(model, loader, opt):\n"
        "    scaler = torch.amp.GradScaler(\"cuda\")\n"
        "    for x in loader:\n"
        "        opt.zero_grad()\n"
        "        scaler.scale(half_loss(model, x)).backward()\n"
        "        scaler.step(opt)\n"
        "        scaler.update()\n"
        "\n"
        "\n"
        "def validate(model, loader):\n"
        "    return sum(half_loss(model, x).item() for x in loader)\n",
        # the same to bfloat16, and a partial of another context manager
        "from functools import partial\n"
        "import torch\n"
        "amp_ctx = torch.autocast(\"cuda\", dtype=torch.bfloat16)\n"
        "def train(model, loader, optimizer):\n"
        "    amp_autocast = partial(torch.autocast, device_type=\"cuda\", dtype=torch.bfloat16)\n"
        "    profiled = partial(torch.profiler.record_function, \"step\")\n"
        "    for x, y in loader:\n"
        "        with amp_autocast():\n"
        "            loss = model(x, y)\n"
        "        loss.backward()\n"
        "        with amp_ctx, profiled():\n"
        "            loss = model(x, y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n",
        # the same held in a name, with a scaler; and a held autocast called for bfloat16
        "from contextlib import suppress\n"
        "import torch\n"
        "def train(probe, criterion, loader, optimizer, amp=True):\n"
        "    autocast = torch.cuda.amp.autocast if amp else suppress\n"
        "    scaler = torch.amp.GradScaler(enabled=amp)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        with autocast():\n"
        "            loss = criterion(probe(x), y)\n"
        "        scaler.scale(loss).backward()\n"
        "        scaler.step(optimizer)\n"
        "        scaler.update()\n"
        "def tune(model, loader, optimizer, amp=True):\n"
        "    autocast = torch.autocast if amp else suppress\n"
        "    for x, y in loader:\n"
        "        with autocast(\"cuda\", dtype=torch.bfloat16):\n"
        "            loss = model(x, y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n",
        # the float16 path of a helper not taken (the flag false, left to its default, or one it
        # cannot tell); float16 outputs detached, computed in bfloat16, or not in the loss
        "import torch\n"
        "import torch.nn.functional as F\n"
        "\n"
        "\n"
        "def denoise_loss(unet, noisy, target, mixed_precision=False):\n"
        "    if mixed_precision:\n"
        "        with torch.autocast(\"cuda\"):\n"
        "            pred = unet(noisy)\n"
        "    else:\n"
        "        pred = unet(noisy)\n"
        "    return F.mse_loss(pred.float(), target.float())\n"
        "\n"
        "\n"
        "def distill_loss(student, teacher, x):\n"
        "    with torch.autocast(\"cuda\", dtype=torch.float16):\n"
        "        soft = teacher(x)\n"
        "    return F.mse_loss(student(x), soft.detach().float())\n"
        "\n"
        "\n"
        "def bf16_loss(model, x, y):\n"
        "    with torch.autocast(\"cuda\", dtype=torch.bfloat16):\n"
        "        logits = model(x)\n"
        "    return F.cross_entropy(logits.float(), y)\n"
        "\n"
        "\n"
        "def probe_loss(backbone, head, x, y):\n"
        "    with torch.autocast(\"cuda\", dtype=torch.float16):\n"
        "        feats = backbone(x)\n"
        "    print(feats.norm().item())\n"
        "    weight = torch.ones(feats.shape[0], device=feats.device)\n"
        "    return (F.cross_entropy(head(x), y, reduction=\"none\") * weight).mean()\n"
        "\n"
        "\n"
        "def tune(unet, model, teacher, loader, opt, amp):\n"
        "    for noisy, target in loader:\n"
        "        opt.zero_grad()\n"
        "        denoise_loss(unet, noisy, target, mixed_precision=False).backward()\n"
        "        denoise_loss(unet, noisy, target).backward()\n"
        "        denoise_loss(unet, noisy, target, mixed_precision=amp).backward()\n"
        "        distill_loss(model, teacher, noisy).backward()\n"
        "        bf16_loss(model, noisy, target).backward()\n"
        "        probe_loss(model, unet, noisy, target).backward()\n"
        "        opt.step()\n",
        # the caller's name holds False, or more than one value, or a `**kwargs` it unpacks
        # (what its dict holds is not followed)
        "import torch\n"
        "import torch.nn.functional as F\n"
        "\n"
        "\n"
        "def step(model, x, y, amp=False):\n"
        "    if amp:\n"
        "        with torch.autocast(\"cuda\"):\n"
        "            return F.mse_loss(model(x), y)\n"
        "    return F.mse_loss(model(x), y)\n"
        "\n"
        "\n"
        "def train(model, loader, opt, fast):\n"
        "    use_amp = False\n"
        "    mixed = True\n"
        "    if not fast:\n"
        "        mixed = False\n"
        "    cfg = {\"amp\": True}\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        step(model, x, y, amp=use_amp).backward()\n"
        "        step(model, x, y, amp=mixed).backward()\n"
        "        step(model, x, y, **cfg).backward()\n"
        "        opt.step()\n",
        # float16 outputs returned in a tuple beside a float32 loss, or read only through argmax
        # and comparisons; autocast `enabled=` by a flag left false; an early return under a
        # test not read (`amp is False`) before the float16 path
        "import torch\n"
        "import torch.nn.functional as F\n"
        "\n"
        "\n"
        "def probe_step(model, probe, x, y):\n"
        "    with torch.autocast(\"cuda\", dtype=torch.float16):\n"
        "        logits = probe(x)\n"
        "    loss = F.cross_entropy(model(x), y)\n"
        "    acc = (logits.argmax(-1) == y).float().mean()\n"
        "    return loss, logits.float(), acc\n"
        "\n"
        "\n"
        "def hard_step(model, probe, x, y):\n"
        "    with torch.autocast(\"cuda\", dtype=torch.float16):\n"
        "        logits = probe(x)\n"
        "    unsure = logits.softmax(-1).amax(-1) < 0.9\n"
        "    return (F.cross_entropy(model(x), y, reduction=\"none\") * unsure).mean()\n"
        "\n"
        "\n"
        "def pseudo_step(model, probe, x):\n"
        "    with torch.autocast(\"cuda\", dtype=torch.float16):\n"
        "        logits = probe(x)\n"
        "    labels = logits.argmax(-1)\n"
        "    return F.cross_entropy(model(x), labels)\n"
        "\n"
        "\n"
        "def masked_step(model, x, y, amp=False):\n"
        "    with torch.autocast(\"cuda\", enabled=amp):\n"
        "        pred = model(x)\n"
        "    return F.mse_loss(pred.float(), y)\n"
        "\n"
        "\n"
        "def guarded_step(model, x, y, amp=False):\n"
        "    if amp is False:\n"
        "        return F.mse_loss(model(x), y)\n"
        "    with torch.autocast(\"cuda\"):\n"
        "        pred = model(x)\n"
        "    return F.mse_loss(pred.float(), y)\n"
        "\n"
        "\n"
        "def train(model, probe, loader, opt):\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        loss, logits, acc = probe_step(model, probe, x, y)\n"
        "        loss.backward()\n"
        "        hard_step(model, probe, x, y).backward()\n"
        "        pseudo_step(model, probe, x).backward()\n"
        "        masked_step(model, x, y, amp=False).backward()\n"
        "        masked_step(model, x, y).backward()\n"
        "        guarded_step(model, x, y).backward()\n"
        "        opt.step()\n",
        # module flags a function may rebind (`global`) or set on some runs only; a wrapper
        # handed false, or left to its default
        "import torch\n"
        "import torch.nn.functional as F\n"
        "\n"
        "USE_AMP = True\n"
        "if not torch.cuda.is_available():\n"
        "    FAST = False\n"
        "else:\n"
        "    FAST = True\n"
        "\n"
        "\n"
        "def step(model, x, y, amp=False):\n"
        "    if amp:\n"
        "        with torch.autocast(\"cuda\"):\n"
        "            return F.mse_loss(model(x), y)\n"
        "    return F.mse_loss(model(x), y)\n"
        "\n"
        "\n"
        "def run(model, x, y, amp=False):\n"
        "    return step(model, x, y, amp)\n"
        "\n"
        "\n"
        "def configure(args):\n"
        "    global USE_AMP\n"
        "    USE_AMP = args.amp\n"
        "\n"
        "\n"
        "def train(model, loader, opt):\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        step(model, x, y, amp=USE_AMP).backward()\n"
        "        step(model, x, y, amp=FAST).backward()\n"
        "        run(model, x, y, amp=False).backward()\n"
        "        run(model, x, y).backward()\n"
        "        opt.step()\n",
        # module flags bound again by a `match` capture or an `except ... as`
        "import json\n"
        "import torch\n"
        "import torch.nn.functional as F\n"
        "\n"
        "USE_AMP = True\n"
        "FAST = True\n"
        "match json.load(open(\"config.json\")):\n"
        "    case {\"amp\": USE_AMP}:\n"
        "        pass\n"
        "try:\n"
        "    import apex\n"
        "except ImportError as FAST:\n"
        "    pass\n"
        "\n"
        "\n"
        "def step(model, x, y, amp=False):\n"
        "    if amp:\n"
        "        with torch.autocast(\"cuda\"):\n"
        "            return F.mse_loss(model(x), y)\n"
        "    return F.mse_loss(model(x), y)\n"
        "\n"
        "\n"
        "def train(model, loader, opt):\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        step(model, x, y, amp=USE_AMP).backward()\n"
        "        step(model, x, y, amp=FAST).backward()\n"
        "        opt.step()\n",
        # functions back-propagating under autocast that need no scaler: under bfloat16; with an
        # autocast of their own switched off around the loss; a backward the call's flag skips;
        # a loss handed in, computed in float32
        "import torch\n"
        "\n"
        "\n"
        "def fit(net, points, optimizer):\n"
        "    def closure():\n"
        "        optimizer.zero_grad()\n"
        "        residual = net(points).pow(2).mean()\n"
        "        residual.backward()\n"
        "        return residual\n"
        "\n"
        "    def bf16_closure():\n"
        "        with torch.autocast(\"cuda\", dtype=torch.bfloat16):\n"
        "            return closure()\n"
        "\n"
        "    optimizer.step(bf16_closure)\n"
        "\n"
        "\n"
        "def full_precision_step(model, x, opt):\n"
        "    with torch.autocast(\"cuda\", enabled=False):\n"
        "        loss = model(x.float()).mean()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "\n"
        "\n"
        "def train_step(model, x, opt, update=True):\n"
        "    loss = model(x).mean()\n"
        "    if update:\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "    return loss\n"
        "\n"
        "\n"
        "def apply(loss, opt):\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "\n"
        "\n"
        "def train(model, loader, opt):\n"
        "    for x in loader:\n"
        "        opt.zero_grad()\n"
        "        loss = model(x).mean()\n"
        "        with torch.autocast(\"cuda\"):\n"
        "            full_precision_step(model, x, opt)\n"
        "            train_step(model, x, opt, update=False)\n"
        "            apply(loss, opt)\n",
        # the closure run under float16 autocast scales its loss
        "import torch\n"
        "\n"
        "\n"
        "def fit(net, points, optimizer):\n"
        "    grad_scaler = torch.amp.GradScaler(\"cuda\")\n"
        "\n"
        "    def closure():\n"
        "        optimizer.zero_grad()\n"
        "        residual = net(points).pow(2).mean()\n"
        "        grad_scaler.scale(residual).backward()\n"
        "        return residual\n"
        "\n"
        "    def half_closure():\n"
        "        with torch.autocast(\"cuda\", dtype=torch.float16):\n"
        "            return closure()\n"
        "\n"
        "    optimizer.step(half_closure)\n",
        # a step helper run under float16 autocast hands its loss to a runner that scales it in
        # float16 runs (Accelerate, DeepSpeed)
        "import torch\n"
        "\n"
        "\n"
        "def step(model, x, opt, accelerator):\n"
        "    loss = model(x).mean()\n"
        "    accelerator.backward(loss)\n"
        "    opt.step()\n"
        "\n"
        "\n"
        "def engine_step(model_engine, x):\n"
        "    loss = model_engine(x).mean()\n"
        "    model_engine.backward(loss)\n"
        "    model_engine.step()\n"
        "\n"
        "\n"
        "def train(model, loader, opt, accelerator, model_engine):\n"
        "    for x in loader:\n"
        "        with torch.autocast(\"cuda\"):\n"
        "            step(model, x, opt, accelerator)\n"
        "            engine_step(model_engine, x)\n",
        # a function of the file that back-propagates, called in an inner autocast that turns
        # float16 off or sets bfloat16 inside the float16 block
        "import torch\n"
        "def closure(net, x):\n"
        "    loss = net(x).mean()\n"
        "    loss.backward()\n"
        "    return loss\n"
        "def fit(net, x):\n"
        "    with torch.autocast(\"cuda\", dtype=torch.float16):\n"
        "        with torch.autocast(\"cuda\", enabled=False):\n"
        "            closure(net, x)\n"
        "def fit_bf16(net, x):\n"
        "    with torch.autocast(\"cuda\", dtype=torch.float16):\n"
        "        with torch.autocast(\"cuda\", dtype=torch.bfloat16):\n"
        "            closure(net, x)\n",
        # overrides of a base class's hooks that do it right, or that the loop runs now and then or by name
        'import torch\n'
        'class Trainer:\n'
        '    def training_step(self, x):\n'
        '        return self.model(x).mean()\n'
        '    def backward(self, loss):\n'
        '        loss.backward()\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            loss = self.training_step(x)\n'
        '            self.optimizer.zero_grad()\n'
        '            self.backward(loss)\n'
        '            self.optimizer.step()\n'
        'class Bf16Trainer(Trainer):\n'
        '    def training_step(self, x):\n'
        '        with torch.autocast("cuda", dtype=torch.bfloat16):\n'
        '            return self.model(x).mean()\n',
        # the loop scales the loss itself and steps through the scaler
        'import torch\n'
        'class Trainer:\n'
        '    def training_step(self, x):\n'
        '        return self.model(x).mean()\n'
        '    def backward(self, loss):\n'
        '        loss.backward()\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            loss = self.training_step(x)\n'
        '            loss = self.scaler.scale(loss)\n'
        '            self.optimizer.zero_grad()\n'
        '            self.backward(loss)\n'
        '            self.scaler.step(self.optimizer)\n'
        '            self.scaler.update()\n'
        'class Fp16Trainer(Trainer):\n'
        '    def training_step(self, x):\n'
        '        with torch.autocast("cuda", dtype=torch.float16):\n'
        '            return self.model(x).mean()\n',
        # the loop back-propagates it itself through a scaler, or hands a function the scaler
        'import torch\n'
        'from amp_utils import backward_scaled\n'
        'class Trainer:\n'
        '    def training_step(self, x):\n'
        '        return self.model(x).mean()\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            self.optimizer.zero_grad()\n'
        '            loss = self.training_step(x)\n'
        '            self.scaler.scale(loss).backward()\n'
        '            self.scaler.step(self.optimizer)\n'
        '            self.scaler.update()\n'
        '    def tune(self, loader):\n'
        '        for x in loader:\n'
        '            self.optimizer.zero_grad()\n'
        '            loss = self.training_step(x)\n'
        '            loss.backward()\n'
        '            backward_scaled(self.scaler, self.optimizer)\n'
        'class Fp16Trainer(Trainer):\n'
        '    def training_step(self, x):\n'
        '        with torch.autocast("cuda", dtype=torch.float16):\n'
        '            return self.model(x).mean()\n',
        # apex's `amp.scale_loss` scales what the loop back-propagates
        'import torch\n'
        'from apex import amp\n'
        'class Trainer:\n'
        '    def training_step(self, x):\n'
        '        return self.model(x).mean()\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            self.optimizer.zero_grad()\n'
        '            loss = self.training_step(x)\n'
        '            with amp.scale_loss(loss, self.optimizer) as scaled_loss:\n'
        '                scaled_loss.backward()\n'
        '            self.optimizer.step()\n'
        'class Fp16Trainer(Trainer):\n'
        '    def training_step(self, x):\n'
        '        with torch.autocast("cuda", dtype=torch.float16):\n'
        '            return self.model(x).mean()\n',
    )

    def _check_overrides(self) -> None:
        """An override a base class's loop back-propagates what it returns, computed under
        float16 autocast, with no GradScaler in the loop's hooks: its float16 autocast is
        reported (see `hook_runs`). Judged by the instance's hooks, not by a scaler
        elsewhere in the module (another class's)."""
        for run in hook_runs(self.ctx):
            backward = unscaled_backward(self.ctx, run) if run.summary.returns_float16 else None
            for node in iter_nodes(run.function.body) if backward is not None else ():
                found = with_precision(self.ctx, node) if type(node) is cst.With else None  # type: ignore[arg-type]
                if found is not None and found[0] == FLOAT16:
                    self.report(found[1], _IN_HOOK.format(run.names(), backward))

    def finish(self) -> None:
        ctx = self.ctx
        self._check_overrides()
        if self._scales_the_loss(ctx.own_nodes(ctx.module)):
            return  # a scaler of the module's own code: any function may use it
        for body in code_bodies(ctx):
            if not self._unit_scales_the_loss(body):
                self._check_body(body)

    def _unit_scales_the_loss(self, body: cst.CSTNode) -> bool:
        """The training code `body` belongs to scales a loss: the class of a method (a
        trainer whose `__init__` builds `self.scaler`), the function a nested one is in."""
        ctx = self.ctx
        unit = next((a for a in reversed(list(ctx.ancestors(body))) if type(a) in (cst.ClassDef, cst.FunctionDef)),
                    body if type(body) is cst.Module else ctx.parent(body))
        return self._scales_the_loss(ctx.own_nodes(unit) if type(unit) is cst.Module else ctx.subtree(unit))

    def _scales_the_loss(self, nodes: Iterable[cst.CSTNode]) -> bool:
        """Something among `nodes` scales a loss: a scaler built or used, a name that
        says so (a scaler passed in, a wrapper's `loss_scaler(...)`)."""
        receivers = self.ctx.receivers
        scalers = GRAD_SCALER in receivers.kinds.values()
        for node in nodes:
            if type(node) is cst.Name and any(w in node.value.lower() for w in _SCALING_WORDS):
                return True
            if scalers and type(node) is cst.Attribute and receivers.is_kind(node.value, GRAD_SCALER):
                return True  # `amp.step(opt)` of an `amp = GradScaler()` made elsewhere in the file
            if type(node) is cst.Call and (
                constructor_kind(self.ctx.call_name(node)) == GRAD_SCALER or scaled_backward_scaler(node) is not None
                or (method_call(node, "scale", "unscale_") is not None and len(node.args) == 1)
            ):
                return True
        return False

    def _check_body(self, body: cst.CSTNode) -> None:
        fp16_blocks = [
            node
            for node in only(self.ctx.own_nodes(body), cst.With)
            if (found := with_precision(self.ctx, node)) is not None and found[0] == FLOAT16  # type: ignore[arg-type]
        ]
        # a helper of the project that returns a value computed under float16 autocast
        # (`loss = compute_loss(model, x, y)`): the assignment, or the backward, holding it
        # counts as written in such a block
        helped = [node for node in self.ctx.own_nodes(body) if type(node) in (cst.Assign, cst.AugAssign, cst.AnnAssign)
                  or method_call(node, "backward") is not None]
        helped = [node for node in helped if self._returns_float16(node)]
        for block in fp16_blocks:
            self._check_callees(block)
        if not fp16_blocks and not helped:
            return
        inside = {id(n) for block in fp16_blocks for n in iter_nodes(block.body)} | {id(n) for n in helped}
        tainted = self._tainted_names(body, inside)
        last_binding: dict[str, bool] = {}  # name -> whether its latest assignment so far may be float16
        last_half: dict[str, cst.CSTNode] = {}  # name -> its latest float16 assignment
        for node in self.ctx.own_nodes(body):
            if type(node) in (cst.Assign, cst.AugAssign, cst.AnnAssign) and node.value is not None:
                targets = assignment_targets(node)
                names = set().union(*(_target_names(t) for t in targets))
                half = id(node) in inside or bool(_names_in(node.value) & tainted)
                for name in names:
                    if half:
                        last_binding[name], last_half[name] = True, node
                    elif name not in last_half or self._replaces(node, last_half[name], body):
                        last_binding[name] = False
            receiver = method_call(node, "backward")
            if receiver is None or scaled_backward_scaler(node) is not None:
                continue
            # a name last assigned outside any float16 block, above in the
            # same body, holds a float32 value here
            roots = {r for r in _roots(receiver) if last_binding.get(r, True)}
            if roots & tainted or (id(node) in inside and _COMPUTED in roots):
                self.report(node)

    def _check_callees(self, block: cst.With) -> None:
        """A function of the file called in the float16 `block` that computes a loss and
        back-propagates it itself (L-BFGS's `closure()`, run as `with torch.autocast(...,
        dtype=torch.float16): return closure()`): its whole body runs under the autocast.
        Reported at that backward, unless the callee has an autocast of its own (which may
        set another dtype) or scales the loss, or the call sits in an inner autocast
        (`enabled=False`, bfloat16)."""
        ctx = self.ctx
        for call in only(ctx.own_nodes(block.body), cst.Call):
            if self._own_precision_between(call, block):
                continue
            callee = ctx.local_callee(call)
            summary = ctx.summaries.of_call(call)  # type: ignore[arg-type]
            if callee is None or summary is None or not summary.computed_backwards:
                continue
            if any(with_precision(ctx, node) is not None for node in only(ctx.own_nodes(callee.body), cst.With)):
                continue
            if self._unit_scales_the_loss(callee.body) or self._scales_the_loss(ctx.subtree(callee)):
                continue
            for backward in _backwards_run_by(ctx, call, callee, summary):  # type: ignore[arg-type]
                self.report(backward, _CALLED_UNDER.format(ctx.code(call.func)))  # type: ignore[attr-defined]

    def _own_precision_between(self, node: cst.CSTNode, block: cst.With) -> bool:
        """A `with` that sets a precision of its own (autocast off, another dtype) holds
        `node` inside `block`."""
        for ancestor in self.ctx.ancestors(node):
            if ancestor is block:
                return False
            if type(ancestor) is cst.With and with_precision(self.ctx, ancestor) is not None:
                return True
        return False

    def _returns_float16(self, node: cst.CSTNode) -> bool:
        """An assignment's value, or a backward's receiver, calls a function of the project
        that returns a value computed under float16 autocast, on every call or under the
        flags this call passes (`loss_step(..., mixed_precision=True)`; see
        `Summary.float16_for`)."""
        held = node.value if type(node) is not cst.Call else node.func.value  # type: ignore[attr-defined]
        if held is None:
            return False
        summaries = self.ctx.summaries
        for call in only(iter_nodes(held), cst.Call):
            summary = summaries.of_call(call)  # type: ignore[arg-type]
            # no flags of the caller's own: one it hands on holds what it cannot tell; a
            # constant it holds in a name of its own counts (`use_amp = True`)
            if summary is not None and summary.float16_for(given_slots(call, {}, self.ctx)):  # type: ignore[arg-type]
                return True
        return False

    def _replaces(self, assignment: cst.CSTNode, half: cst.CSTNode, body: cst.CSTNode) -> bool:
        """A float32 `assignment` after the float16 one, `half`, replaces it on every
        path: each branch it sits in holds `half` too. In the `else:` of an `if
        use_amp:` whose body assigned under autocast, it does not."""
        above = set(map(id, self.ctx.ancestors(half)))
        child = assignment
        for ancestor in self.ctx.ancestors(assignment):
            if ancestor is body:
                break
            arm = child if type(ancestor) is cst.If else ancestor
            if type(ancestor) in _BRANCHES and id(arm) not in above and arm is not half:
                return False
            child = ancestor
        return True

    def _tainted_names(self, body: cst.CSTNode, inside: set[int]) -> set[str]:
        """Names holding values computed under float16 autocast: assigned
        inside an autocast block, or later assigned from such names."""
        assignments = [n for n in self.ctx.own_nodes(body) if type(n) in (cst.Assign, cst.AugAssign, cst.AnnAssign)]
        tainted: set[str] = set()
        for _ in range(3):
            before = len(tainted)
            for node in assignments:
                value = node.value
                if value is None:
                    continue
                if id(node) in inside or _names_in(value) & tainted:
                    targets = assignment_targets(node)
                    for target in targets:
                        tainted |= _target_names(target)
            if len(tainted) == before:
                break
        return tainted


_IN_HOOK = (
    "backward through float16 autocast without a GradScaler: {} and back-propagates what it returns "
    "{}, with no GradScaler; small gradients underflow to zero: scale the loss with `torch.amp.GradScaler` "
    "or use bfloat16"
)
_CALLED_UNDER = (
    "backward through float16 autocast without a GradScaler: `{}()` runs this function under "
    "float16 autocast, so small gradients underflow to zero; scale the loss with "
    "`torch.amp.GradScaler` or use bfloat16"
)

def _backwards_run_by(ctx: FileContext, call: cst.Call, callee: cst.FunctionDef, summary: Summary) -> list[cst.Call]:
    """The `.backward()` calls of `callee` on a tensor it computes, with no grad mode of its
    own, that `call` lets run: its constant arguments, or the defaults it leaves, take the
    `if flag:` around each (see `Summary.computed_backwards`). A tensor's own backward only:
    `accelerator.backward(loss)` / `engine.backward(loss)` scale the loss themselves in a
    float16 run."""
    flags = function_flags(ctx, callee, summary.params)
    given = given_slots(call, {}, ctx)
    found = []
    for node in only(ctx.own_nodes(callee.body), cst.Call):
        receiver = method_call(node, "backward")
        if not is_backward(node) or backward_target(node) is not receiver or scaled_backward_scaler(node) is not None:
            continue
        needs = runs_when(ctx, node, flags) if computed_here(ctx, node, None) else None
        if needs is not None and needs_through(summary, given, needs) == ():
            found.append(node)
    return found


# what runs on some paths only: the arm of an `if` (its body or `else:`), a handler,
# a case, a loop's body
_BRANCHES = (cst.If, cst.ExceptHandler, cst.MatchCase, cst.For, cst.While)
_COMPUTED = "<computed>"  # a root that is a fresh call: `model(x).sum().backward()`


def _roots(expr: cst.BaseExpression) -> set[str]:
    """The variables a backward receiver is computed from (`loss` in
    `(loss / accum)`, `outputs` in `outputs.loss.mean()`)."""
    if type(expr) is cst.Name:
        return {expr.value}
    if type(expr) is cst.Attribute and dotted_name(expr) is not None:
        return {dotted_name(expr)} | _roots(expr.value)  # type: ignore[arg-type]  # `self.output`
    if type(expr) in (cst.Attribute, cst.Subscript):
        return _roots(expr.value)
    if type(expr) is cst.Call:
        if type(expr.func) is cst.Attribute:
            return _roots(expr.func.value)
        # `criterion(logits, y)`: computed from its arguments
        return {_COMPUTED}.union(*(_roots(arg.value) for arg in expr.args))
    if type(expr) is cst.BinaryOperation:
        return _roots(expr.left) | _roots(expr.right)
    if type(expr) is cst.UnaryOperation:
        return _roots(expr.expression)
    return set()


def _names_in(expr: cst.CSTNode) -> set[str]:
    """The variables `expr` reads, and the attributes it reads by a dotted name (`self.output`)."""
    return {n.value if type(n) is cst.Name else dotted_name(n) for n in iter_nodes(expr)  # type: ignore[misc]
            if type(n) is cst.Name or (type(n) is cst.Attribute and dotted_name(n) is not None)}


def _target_names(target: cst.BaseExpression) -> set[str]:
    if type(target) is cst.Name:
        return {target.value}
    if type(target) is cst.Attribute and dotted_name(target) is not None:
        return {dotted_name(target)}  # type: ignore[set-item]  # a trainer's `self.output`
    if type(target) in (cst.Tuple, cst.List):
        return set().union(*(_target_names(e.value) for e in target.elements)) if target.elements else set()
    if type(target) is cst.StarredElement:
        return _target_names(target.value)
    return set()

