from __future__ import annotations

import libcst as cst

from trainlint.analysis.guards import is_device_check
from trainlint.analysis.hook_runs import HookRun, hook_runs, runs_on_every_call
from trainlint.analysis.iteration import builds_its_model_each_iteration, steps_each_iteration, trains_each_run
from trainlint.analysis.lambdas import called_lambda, lambda_calls
from trainlint.analysis.summarize import empties_cache
from trainlint.analysis.training import loop_guards
from trainlint.rule import Example, Fix, Rule
from trainlint.summaries import EMPTY_CACHE, LOOP


_THROUGH_HELPER = (
    "`{}()` runs `torch.cuda.empty_cache()` on every iteration: it defeats the caching allocator and slows training"
)
_IN_HOOK = (
    "`torch.cuda.empty_cache()` runs on every iteration of {}: it defeats the caching allocator and slows "
    "training"
)


class EmptyCacheInLoop(Rule):
    """
    ## What it does
    Flags `torch.cuda.empty_cache()` that runs on every iteration of a
    training loop: a loop whose body (outside any loop nested in it)
    back-propagates or steps an optimizer, directly or through a function it
    calls (of this file or of the project). A helper that empties the cache
    (a wrapper, an EMA update) and is called on every iteration is flagged
    at its call.

    ## Why is this bad?
    PyTorch keeps freed GPU memory in its caching allocator so the next step
    can reuse it without asking the driver. Emptying the cache every step
    hands that memory back, so every step pays for fresh `cudaMalloc` calls
    and synchronizations: throughput drops and fragmentation gets no better.
    It does not free memory that tensors still use, so it does not prevent an
    out-of-memory error either. Call it, if at all, after a phase ends or
    while debugging.

    ## Fix safety
    Unsafe: removes the call. That never changes results, but a program that
    shares the GPU with other processes may rely on giving memory back; only
    applied with `--unsafe-fixes`. Comment lines above the call stay.

    ## Limitations
    A call under any condition other than a device check
    (`if torch.cuda.is_available():`, accelerate's `is_xpu_available()`) or the condition the training step
    itself runs under (the block of `if global_step > learning_starts:` or of
    `if step % accumulation_steps == 0:` that back-propagates or steps: the
    call runs with every optimizer step) is left alone: a period around the
    call alone (`if step % 100 == 0:`), an opt-in flag
    (`if args.clear_cache:`), a one-shot guard (`if step == 0:`) or a memory
    threshold means the author chose when it runs. Calls in an exception
    handler (out-of-memory recovery), after the loop, or in a loop that does
    not train (generation, evaluation, a loop over loggers) are not flagged.
    Nor is a call in an outer loop whose training happens only in a loop
    nested in it (once per epoch, once per run of a sweep), or in a loop each
    iteration of which builds, unconditionally, the model (a class of the
    project) it back-propagates, and any optimizer it steps: a sweep of
    separate runs (a batch-size probe, a timing per configuration), where
    nothing trained carries over to the next iteration; a step loop that
    steps the optimizer itself around a micro-batch loop is flagged, and so
    is one whose step is a loop over its parts, each back-propagated and
    stepped with an optimizer of the loop variable (`for opt in optimizers:`,
    a GAN's `for phase in phases: ... phase.opt.step()`, also when each part
    back-propagates its micro-batches in a loop of its own before its step). A helper that runs a loop
    of its own is a phase, not a step, and is not flagged, unless that loop
    only back-propagates micro-batches (the step is left to what follows it;
    logging them through a function of the file that only computes is fine),
    runs only now and then without training (a sample every 100 steps), only prints, logs or counts (a progress bar drawn character by
    character; a log record through any logger, `logger.info(...)` of `logging`
    or loguru, or a value written to a summary writer, `writer.add_scalar(...)`,
    told by the method and the name of the logger or writer), or walks the
    model's weights (an EMA's update).

    Helpers are followed, in this file and in the modules of the project it
    imports, and judged as the loop is: a helper that empties the cache only
    under a condition of its own (a memory threshold, a flag, a period) is
    left alone, one under a device check or with its own optimizer step is
    not. Followed: a wrapper (`def empty_cache(): torch.cuda.empty_cache()`), one
    nested in the function that calls it (not another function's of the same
    name), a lambda a name is bound to (`free = lambda: torch.cuda.empty_cache()`,
    unless it empties the cache under a condition of its own), an EMA's `update()`
    that empties the cache, the accelerator's module looked
    up by name (`getattr(torch, device).empty_cache()`); the call of the
    helper in the loop is reported, and so is a method a class inherits
    (`self.free_memory()` of a base class, in this file or imported, and
    `super().method()`), looked up in the order Python does for single
    inheritance (bases depth first, left to right), and the `forward` that
    calling a model runs (`model(x)` of a class of the project, also compiled or
    wrapped where it is built: `torch.compile(Net())`, `nn.DataParallel(Net())`,
    or where it is called: `torch.compile(Net())(x)`). Out of reach: a helper held in a variable
    other than by a lambda assigned to it (a callback, a hook a library trainer runs), a method of an object whose
    class cannot be told (a parameter, an attribute set in another module),
    and code of installed libraries.

    An override of a hook that a training loop of a base class calls on every
    iteration (`self.on_step_end()` in `Trainer.fit()`, a class of this file or
    of a module of the project) is judged as that loop runs it for the
    subclass, whose other hooks count: the call in the override is reported,
    naming the loop. Not when the loop calls the hook under a condition, nor a
    method the loop looks up by a name built at run time
    (`getattr(self, "on_" + event)()`), nor a hook no class overrides.
    """

    code = "TL201"
    name = "empty-cache-in-loop"
    severity = "warning"
    message = "`torch.cuda.empty_cache()` runs on every iteration: it defeats the caching allocator and slows training"
    fix_safety = "unsafe"
    triggers = ("empty_cache",)
    bad = (
        Example(
            "import torch\n"
            "for x, y in loader:\n"
            "    loss = model(x).sum()\n"
            "    loss.backward()\n"
            "    optimizer.step()\n"
            "    torch.cuda.empty_cache()  # expect: TL201\n",
            fixed="import torch\n"
            "for x, y in loader:\n"
            "    loss = model(x).sum()\n"
            "    loss.backward()\n"
            "    optimizer.step()\n",
        ),
        Example(
            "import torch\n"
            "from torch.cuda import empty_cache\n"
            "def train(model, loader, opt):\n"
            "    for epoch in range(10):\n"
            "        for batch in loader:\n"
            "            model(batch).mean().backward()\n"
            "            if torch.cuda.is_available():\n"
            "                empty_cache()  # expect: TL201\n",
            fixed="import torch\n"
            "from torch.cuda import empty_cache\n"
            "def train(model, loader, opt):\n"
            "    for epoch in range(10):\n"
            "        for batch in loader:\n"
            "            model(batch).mean().backward()\n"
            "            if torch.cuda.is_available():\n"
            "                pass  # expect: TL201\n",
        ),
        Example(
            "import torch as th\n"
            "def train_step(model, opt):\n"
            "    model(next(data)).mean().backward()\n"
            "    opt.step()\n"
            "step = 0\n"
            "while step < 1000:\n"
            "    try:\n"
            "        train_step(model, opt)\n"
            "    finally:\n"
            "        th.cuda.empty_cache()  # expect: TL201\n"
            "    step += 1\n",
            fixed="import torch as th\n"
            "def train_step(model, opt):\n"
            "    model(next(data)).mean().backward()\n"
            "    opt.step()\n"
            "step = 0\n"
            "while step < 1000:\n"
            "    try:\n"
            "        train_step(model, opt)\n"
            "    finally:\n"
            "        pass  # expect: TL201\n"
            "    step += 1\n",
        ),
        # a step loop with a micro-batch loop inside still steps every iteration
        Example(
            "import torch\n"
            "optimizer = torch.optim.AdamW(model.parameters())\n"
            "for batch in loader:\n"
            "    for micro in batch.chunk(4):\n"
            "        model(micro).mean().backward()\n"
            "    optimizer.step()\n"
            "    optimizer.zero_grad()\n"
            "    torch.cuda.empty_cache()  # expect: TL201\n",
            fixed="import torch\n"
            "optimizer = torch.optim.AdamW(model.parameters())\n"
            "for batch in loader:\n"
            "    for micro in batch.chunk(4):\n"
            "        model(micro).mean().backward()\n"
            "    optimizer.step()\n"
            "    optimizer.zero_grad()\n",
        ),
        # a wrapper of the project, and an EMA helper that empties the cache
        "import torch\n"
        "def empty_cache():\n"
        "    if torch.cuda.is_available():\n"
        "        torch.cuda.empty_cache()\n"
        "class ModelEMA:\n"
        "    def update(self, model):\n"
        "        self.decay_towards(model)\n"
        "        torch.cuda.empty_cache()\n"
        "def train(model, loader, optimizer):\n"
        "    ema = ModelEMA()\n"
        "    for x in loader:\n"
        "        model(x).sum().backward()\n"
        "        optimizer.step()\n"
        "        ema.update(model)  # expect: TL201\n"
        "        empty_cache()  # expect: TL201\n",
        # a per-step progress bar whose own loops only draw it
        "import sys\n"
        "import torch\n"
        "def progress_bar(current, total):\n"
        "    torch.cuda.empty_cache()\n"
        "    for _ in range(int(30 * current / total)):\n"
        "        sys.stdout.write('=')\n"
        "    print(f' {current}/{total}')\n"
        "for i, x in enumerate(loader):\n"
        "    model(x).sum().backward()\n"
        "    optimizer.step()\n"
        "    progress_bar(i, len(loader))  # expect: TL201\n",
        # per-step helpers whose loops walk the weights (an EMA) or print statistics
        "import torch\n"
        "def ema_update(ema, model):\n"
        "    for e, p in zip(ema.parameters(), model.parameters()):\n"
        "        e.data.mul_(0.999).add_(p.data, alpha=0.001)\n"
        "    torch.cuda.empty_cache()\n"
        "def log_stats(stats):\n"
        "    for name, value in stats.items():\n"
        "        print(name, value)\n"
        "    torch.cuda.empty_cache()\n"
        "for x in loader:\n"
        "    model(x).sum().backward()\n"
        "    optimizer.step()\n"
        "    ema_update(ema, model)  # expect: TL201\n"
        "    log_stats({'loss': 0.0})  # expect: TL201\n",
        # a method of a class defined inside the function that trains
        "import torch\n"
        "def main(model, optimizer, batches):\n"
        "    class Trainer:\n"
        "        def train_step(self, batch):\n"
        "            model(batch).mean().backward()\n"
        "            optimizer.step()\n"
        "            optimizer.zero_grad()\n"
        "            torch.cuda.empty_cache()\n"
        "    trainer = Trainer()\n"
        "    for batch in batches:\n"
        "        trainer.train_step(batch)  # expect: TL201\n",
        # a method inherited from a base class (another class has one of that name)
        "import torch\n"
        "class BaseTrainer:\n"
        "    def free_memory(self):\n"
        "        torch.cuda.empty_cache()\n"
        "class Recorder:\n"
        "    def free_memory(self):\n"
        "        self.frames.clear()\n"
        "class Trainer(BaseTrainer):\n"
        "    def fit(self, loader):\n"
        "        for x in loader:\n"
        "            self.model(x).sum().backward()\n"
        "            self.optimizer.step()\n"
        "            self.free_memory()  # expect: TL201\n",
        # a step helper whose own loop only back-propagates micro-batches is one step
        "import torch\n"
        "class TrainLoop:\n"
        "    def run_loop(self):\n"
        "        while True:\n"
        "            self.run_step(next(self.data))  # expect: TL201\n"
        "    def run_step(self, batch):\n"
        "        self.forward_backward(batch)\n"
        "        self.opt.step()\n"
        "        torch.cuda.empty_cache()\n"
        "    def forward_backward(self, batch):\n"
        "        self.opt.zero_grad()\n"
        "        for micro in batch.chunk(4):\n"
        "            self.model(micro).mean().backward()\n",
        # calling a model runs its forward
        "import torch\n"
        "class Net(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        torch.cuda.empty_cache()\n"
        "        return self.body(x)\n"
        "class Trainer:\n"
        "    def __init__(self):\n"
        "        self.model = Net()\n"
        "    def fit(self, loader, optimizer):\n"
        "        for x in loader:\n"
        "            self.model(x).sum().backward()  # expect: TL201\n"
        "            optimizer.step()\n",
        # the accelerator's module looked up by name
        Example(
            "import torch\n"
            "device_module = getattr(torch, 'cuda')\n"
            "def train(model, loader, optimizer):\n"
            "    for x in loader:\n"
            "        model(x).sum().backward()\n"
            "        optimizer.step()\n"
            "        device_module.empty_cache()  # expect: TL201\n",
            fixed="import torch\n"
            "device_module = getattr(torch, 'cuda')\n"
            "def train(model, loader, optimizer):\n"
            "    for x in loader:\n"
            "        model(x).sum().backward()\n"
            "        optimizer.step()\n",
        ),
        # gradient accumulation, or a training frequency: the call runs with every
        # optimizer step, under the condition the step runs under
        Example(
            "import torch\n"
            "optimizer = torch.optim.AdamW(model.parameters())\n"
            "for i, (x, y) in enumerate(loader):\n"
            "    criterion(model(x), y).backward()\n"
            "    if (i + 1) % accumulation_steps == 0:\n"
            "        optimizer.step()\n"
            "        optimizer.zero_grad()\n"
            "        torch.cuda.empty_cache()  # expect: TL201\n",
            fixed="import torch\n"
            "optimizer = torch.optim.AdamW(model.parameters())\n"
            "for i, (x, y) in enumerate(loader):\n"
            "    criterion(model(x), y).backward()\n"
            "    if (i + 1) % accumulation_steps == 0:\n"
            "        optimizer.step()\n"
            "        optimizer.zero_grad()\n",
        ),
        # the step runs after a warm-up threshold (off-policy RL): the call runs with
        # every step under the same condition
        Example(
            "import torch\n"
            "for global_step in range(total_steps):\n"
            "    buffer.add(env.step(policy(obs)))\n"
            "    if global_step > learning_starts:\n"
            "        loss = criterion(q(batch.obs), batch.target)\n"
            "        optimizer.zero_grad()\n"
            "        loss.backward()\n"
            "        optimizer.step()\n"
            "        torch.cuda.empty_cache()  # expect: TL201\n",
            fixed="import torch\n"
            "for global_step in range(total_steps):\n"
            "    buffer.add(env.step(policy(obs)))\n"
            "    if global_step > learning_starts:\n"
            "        loss = criterion(q(batch.obs), batch.target)\n"
            "        optimizer.zero_grad()\n"
            "        loss.backward()\n"
            "        optimizer.step()\n",
        ),
        # a GAN's step is a loop over its phases, each stepping its own optimizer
        Example(
            "import torch\n"
            "for real in loader:\n"
            "    for module, opt in [(generator, opt_g), (discriminator, opt_d)]:\n"
            "        opt.zero_grad()\n"
            "        module(real).sum().backward()\n"
            "        opt.step()\n"
            "    torch.cuda.empty_cache()  # expect: TL201\n",
            fixed="import torch\n"
            "for real in loader:\n"
            "    for module, opt in [(generator, opt_g), (discriminator, opt_d)]:\n"
            "        opt.zero_grad()\n"
            "        module(real).sum().backward()\n"
            "        opt.step()\n",
        ),
        # a step helper that empties the cache with each optimizer step of gradient accumulation
        "import torch\n"
        "def train_step(model, batch, opt, step, accum):\n"
        "    (model(batch).sum() / accum).backward()\n"
        "    if (step + 1) % accum == 0:\n"
        "        opt.step()\n"
        "        opt.zero_grad()\n"
        "        torch.cuda.empty_cache()\n"
        "def train(model, loader, opt):\n"
        "    for step, batch in enumerate(loader):\n"
        "        train_step(model, batch, opt, step, 8)  # expect: TL201\n",
        # a trainer module moved to the GPU is still of its class: `.cuda()` returns it
        "import torch\n"
        "class Trainer(torch.nn.Module):\n"
        "    def train_step(self, batch):\n"
        "        self.model(batch).sum().backward()\n"
        "        self.optimizer.step()\n"
        "        self.optimizer.zero_grad()\n"
        "    def free(self):\n"
        "        torch.cuda.empty_cache()\n"
        "def main(model, loader):\n"
        "    trainer = Trainer(model).cuda()\n"
        "    for batch in loader:\n"
        "        trainer.train_step(batch)\n"
        "        trainer.free()  # expect: TL201\n",
        Example(
            "import torch\n"
            "for x, y in loader:\n"
            "    model(x).sum().backward()\n"
            "    optimizer.step()\n"
            "    # free what the step left behind\n"
            "    torch.cuda.empty_cache()  # expect: TL201\n"
            "    log(step)\n"
            "    # and once more before the next batch\n"
            "    torch.cuda.empty_cache()  # expect: TL201\n",
            fixed="import torch\n"
            "for x, y in loader:\n"
            "    model(x).sum().backward()\n"
            "    optimizer.step()\n"
            "    # free what the step left behind\n"
            "    log(step)\n"
            "    # and once more before the next batch\n",
        ),
        Example(  # a step method that also updates a meter, whose own loop keeps its sums (YOLOX)
            "import torch\n"
            "class Meter:\n"
            "    def update(self, **values):\n"
            "        for k, v in values.items():\n"
            "            self.sums[k] = self.sums.get(k, 0.0) + v\n"
            "class Trainer:\n"
            "    def train_one_iter(self, x):\n"
            "        self.optimizer.zero_grad()\n"
            "        loss = self.model(x).sum()\n"
            "        loss.backward()\n"
            "        self.optimizer.step()\n"
            "        self.meter.update(loss=loss.item())\n"
            "        torch.cuda.empty_cache()\n"
            "    def train(self):\n"
            "        self.meter = Meter()\n"
            "        for x in self.loader:\n"
            "            self.train_one_iter(x)  # expect: TL201\n",
        ),
        # the `else:` path is the training step of runs without fp16
        Example(
            "import torch\n"
            "def train(model, opt, loader, use_fp16):\n"
            "    for batch in loader:\n"
            "        opt.zero_grad()\n"
            "        model(batch).mean().backward()\n"
            "        if use_fp16:\n"
            "            opt.step()\n"
            "        else:\n"
            "            torch.cuda.empty_cache()  # expect: TL201\n"
            "            opt.step()\n",
            fixed="import torch\n"
            "def train(model, opt, loader, use_fp16):\n"
            "    for batch in loader:\n"
            "        opt.zero_grad()\n"
            "        model(batch).mean().backward()\n"
            "        if use_fp16:\n"
            "            opt.step()\n"
            "        else:\n"
            "            opt.step()\n",
        ),
        # an EMA update over a dict of the model's weights, called every step
        "import torch\n"
        "@torch.no_grad()\n"
        "def update_ema(ema, model, decay=0.9999):\n"
        "    ema_params = dict(ema.named_parameters())\n"
        "    model_params = dict(model.named_parameters())\n"
        "    torch.cuda.empty_cache()\n"
        "    for name, param in model_params.items():\n"
        "        ema_params[name].mul_(decay).add_(param.data, alpha=1 - decay)\n"
        "def main(model, ema, loader):\n"
        "    opt = torch.optim.AdamW(model.parameters())\n"
        "    for x in loader:\n"
        "        opt.zero_grad()\n"
        "        model(x).mean().backward()\n"
        "        opt.step()\n"
        "        update_ema(ema, model)  # expect: TL201\n",
        # a step method whose helper computes in a loop of its own (log-probabilities a chunk at a time)
        "import torch\n"
        "def chunked_logprobs(logits, chunk=4):\n"
        "    out = []\n"
        "    for start in range(0, logits.size(0), chunk):\n"
        "        out.append(logits[start:start + chunk].log_softmax(-1))\n"
        "    return torch.cat(out)\n"
        "class Recipe:\n"
        "    def step(self, batch):\n"
        "        torch.cuda.empty_cache()\n"
        "        chunked_logprobs(self.model(batch)).mean().backward()\n"
        "    def train(self):\n"
        "        for batch in self.loader:\n"
        "            self.step(batch)  # expect: TL201\n"
        "            self.optimizer.step()\n"
        "            self.optimizer.zero_grad()\n",
        # a step helper that moves the batch with a helper of its own, and measures the
        # gradient norm under no_grad, a loop each
        "import torch\n"
        "def convert(value, device):\n"
        "    return value.to(device) if torch.is_tensor(value) else value\n"
        "def moved(batch, device):\n"
        "    out = {}\n"
        "    for key, value in batch.items():\n"
        "        out[key] = convert(value, device)\n"
        "    return out\n"
        "def grad_norm(params):\n"
        "    total = 0.0\n"
        "    for p in params:\n"
        "        with torch.no_grad():\n"
        "            total += p.grad.norm().item() ** 2\n"
        "    return total ** 0.5\n"
        "def train_step(model, optimizer, batch):\n"
        "    batch = moved(batch, 'cuda')\n"
        "    optimizer.zero_grad()\n"
        "    model(batch['x']).mean().backward()\n"
        "    norm = grad_norm(model.parameters())\n"
        "    optimizer.step()\n"
        "    torch.cuda.empty_cache()\n"
        "    return norm\n"
        "for batch in loader:\n"
        "    train_step(model, optimizer, batch)  # expect: TL201\n",
        Example(  # the meter detaches the tensors it is given before keeping them
            "import torch\n"
            "class Meter:\n"
            "    def update(self, **values):\n"
            "        for k, v in values.items():\n"
            "            if isinstance(v, torch.Tensor):\n"
            "                v = v.detach()\n"
            "            self.history.setdefault(k, []).append(v)\n"
            "class Trainer:\n"
            "    def train_one_iter(self, x):\n"
            "        self.optimizer.zero_grad()\n"
            "        loss = self.model(x).sum()\n"
            "        loss.backward()\n"
            "        self.optimizer.step()\n"
            "        self.meter.update(loss=loss)\n"
            "        torch.cuda.empty_cache()\n"
            "    def train(self):\n"
            "        self.meter = Meter()\n"
            "        for x in self.loader:\n"
            "            self.train_one_iter(x)  # expect: TL201\n",
        ),
        # a helper that empties whichever accelerator's cache the run has
        "import torch\n"
        "def empty_cache():\n"
        "    if torch.backends.mps.is_available():\n"
        "        torch.mps.empty_cache()\n"
        "    elif torch.xpu.is_available():\n"
        "        torch.xpu.empty_cache()\n"
        "    else:\n"
        "        torch.cuda.empty_cache()\n"
        "def train(model, loader, optimizer):\n"
        "    for x, y in loader:\n"
        "        model(x).sum().backward()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n"
        "        empty_cache()  # expect: TL201\n",
        # each part of the step back-propagates its micro-batches, then steps (StyleGAN2-ADA's phases)
        Example(
            "import torch\n"
            "def train(phases, loader):\n"
            "    for real in loader:\n"
            "        for module, opt in phases:\n"
            "            opt.zero_grad()\n"
            "            for chunk in real.split(4):\n"
            "                module(chunk).sum().backward()\n"
            "            opt.step()\n"
            "        torch.cuda.empty_cache()  # expect: TL201\n",
            fixed="import torch\n"
            "def train(phases, loader):\n"
            "    for real in loader:\n"
            "        for module, opt in phases:\n"
            "            opt.zero_grad()\n"
            "            for chunk in real.split(4):\n"
            "                module(chunk).sum().backward()\n"
            "            opt.step()\n",
        ),
        # a step method that logs its micro-batches through a helper of the file and samples every 100 steps (DALLE2's VQGAN trainer)
        Example(
            "import torch\n"
            "def accum_log(log, new):\n"
            "    for key, value in new.items():\n"
            "        log[key] = log.get(key, 0.0) + value\n"
            "    return log\n"
            "class Trainer:\n"
            "    def __init__(self, vae, ema, dl):\n"
            "        self.vae, self.ema, self.dl, self.steps = vae, ema, dl, 0\n"
            "        self.optim = torch.optim.Adam(vae.parameters(), lr=1e-4)\n"
            "    def train_step(self):\n"
            "        logs = {}\n"
            "        for _ in range(4):\n"
            "            loss = self.vae(next(self.dl))\n"
            "            loss.backward()\n"
            "            accum_log(logs, {\"loss\": loss.item()})\n"
            "        self.optim.step()\n"
            "        self.optim.zero_grad()\n"
            "        if self.steps % 100 == 0:\n"
            "            for model in (self.ema, self.vae):\n"
            "                with torch.no_grad():\n"
            "                    model(next(self.dl))\n"
            "        self.steps += 1\n"
            "    def train(self, n):\n"
            "        for _ in range(n):\n"
            "            self.train_step()\n"
            "            torch.cuda.empty_cache()  # expect: TL201\n",
            fixed="import torch\n"
            "def accum_log(log, new):\n"
            "    for key, value in new.items():\n"
            "        log[key] = log.get(key, 0.0) + value\n"
            "    return log\n"
            "class Trainer:\n"
            "    def __init__(self, vae, ema, dl):\n"
            "        self.vae, self.ema, self.dl, self.steps = vae, ema, dl, 0\n"
            "        self.optim = torch.optim.Adam(vae.parameters(), lr=1e-4)\n"
            "    def train_step(self):\n"
            "        logs = {}\n"
            "        for _ in range(4):\n"
            "            loss = self.vae(next(self.dl))\n"
            "            loss.backward()\n"
            "            accum_log(logs, {\"loss\": loss.item()})\n"
            "        self.optim.step()\n"
            "        self.optim.zero_grad()\n"
            "        if self.steps % 100 == 0:\n"
            "            for model in (self.ema, self.vae):\n"
            "                with torch.no_grad():\n"
            "                    model(next(self.dl))\n"
            "        self.steps += 1\n"
            "    def train(self, n):\n"
            "        for _ in range(n):\n"
            "            self.train_step()\n",
        ),
        # the phases' micro-batches back-propagated by a helper, each phase stepped through the GradScaler
        Example(
            "import torch\n"
            "def accumulate(module, chunk, scaler):\n"
            "    with torch.autocast(\"cuda\"):\n"
            "        loss = module(chunk).mean()\n"
            "    scaler.scale(loss).backward()\n"
            "def training_loop(phases, loader, scaler):\n"
            "    for real in loader:\n"
            "        for module, opt in phases:\n"
            "            opt.zero_grad(set_to_none=True)\n"
            "            for chunk in real.split(4):\n"
            "                accumulate(module, chunk, scaler)\n"
            "            scaler.step(opt)\n"
            "            scaler.update()\n"
            "        torch.cuda.empty_cache()  # expect: TL201\n",
            fixed="import torch\n"
            "def accumulate(module, chunk, scaler):\n"
            "    with torch.autocast(\"cuda\"):\n"
            "        loss = module(chunk).mean()\n"
            "    scaler.scale(loss).backward()\n"
            "def training_loop(phases, loader, scaler):\n"
            "    for real in loader:\n"
            "        for module, opt in phases:\n"
            "            opt.zero_grad(set_to_none=True)\n"
            "            for chunk in real.split(4):\n"
            "                accumulate(module, chunk, scaler)\n"
            "            scaler.step(opt)\n"
            "            scaler.update()\n",
        ),
        # the micro-batches logged through a method of the trainer's own class
        Example(
            "import torch\n"
            "class Trainer:\n"
            "    def __init__(self, vae, dl):\n"
            "        self.vae, self.dl = vae, dl\n"
            "        self.optim = torch.optim.Adam(vae.parameters(), lr=1e-4)\n"
            "    def accum_log(self, log, new):\n"
            "        for key, value in new.items():\n"
            "            log[key] = log.get(key, 0.0) + value\n"
            "    def train_step(self):\n"
            "        logs = {}\n"
            "        for _ in range(4):\n"
            "            loss = self.vae(next(self.dl))\n"
            "            loss.backward()\n"
            "            self.accum_log(logs, {\"loss\": loss.item()})\n"
            "        self.optim.step()\n"
            "        self.optim.zero_grad()\n"
            "    def train(self, n):\n"
            "        for _ in range(n):\n"
            "            self.train_step()\n"
            "            torch.cuda.empty_cache()  # expect: TL201\n",
            fixed="import torch\n"
            "class Trainer:\n"
            "    def __init__(self, vae, dl):\n"
            "        self.vae, self.dl = vae, dl\n"
            "        self.optim = torch.optim.Adam(vae.parameters(), lr=1e-4)\n"
            "    def accum_log(self, log, new):\n"
            "        for key, value in new.items():\n"
            "            log[key] = log.get(key, 0.0) + value\n"
            "    def train_step(self):\n"
            "        logs = {}\n"
            "        for _ in range(4):\n"
            "            loss = self.vae(next(self.dl))\n"
            "            loss.backward()\n"
            "            self.accum_log(logs, {\"loss\": loss.item()})\n"
            "        self.optim.step()\n"
            "        self.optim.zero_grad()\n"
            "    def train(self, n):\n"
            "        for _ in range(n):\n"
            "            self.train_step()\n",
        ),
        # a helper emptying the cache through a variable holding torch's function
        "import torch\n"
        "\n"
        "free = torch.cuda.empty_cache\n"
        "\n"
        "def cleanup():\n"
        "    free()\n"
        "\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    criterion(model(x), y).backward()\n"
        "    optimizer.step()\n"
        "    cleanup()  # expect: TL201\n",
        # a helper nested in the training function, called there and in a closure; another
        # function nests a helper of the same name that does not empty the cache
        "import gc\n"
        "import torch\n"
        "def fit(model, loader, opt):\n"
        "    def cleanup():\n"
        "        torch.cuda.empty_cache()\n"
        "    def run_epoch():\n"
        "        for x in loader:\n"
        "            opt.zero_grad()\n"
        "            model(x).sum().backward()\n"
        "            opt.step()\n"
        "            cleanup()  # expect: TL201\n"
        "    for x in loader:\n"
        "        opt.zero_grad()\n"
        "        model(x).sum().backward()\n"
        "        opt.step()\n"
        "        cleanup()  # expect: TL201\n"
        "def shutdown():\n"
        "    def cleanup():\n"
        "        gc.collect()\n"
        "    cleanup()\n",
        # a lambda that empties the cache, called on every iteration
        "import gc\n"
        "import torch\n"
        "def fit(model, loader, opt):\n"
        "    free = lambda: torch.cuda.empty_cache()\n"
        "    collect = lambda: (gc.collect(), torch.cuda.empty_cache())\n"
        "    for batch in loader:\n"
        "        opt.zero_grad()\n"
        "        model(batch).mean().backward()\n"
        "        opt.step()\n"
        "        free()  # expect: TL201\n"
        "        collect()  # expect: TL201\n",
        # per-step helpers whose loops only log, through a logger or a summary writer
        "import logging\n"
        "import torch\n"
        "logger = logging.getLogger(__name__)\n"
        "def after_step(step, logs):\n"
        "    for k, v in logs.items():\n"
        "        logger.info('%s=%s', k, v)\n"
        "    torch.cuda.empty_cache()\n"
        "def write_scalars(writer, logs, step):\n"
        "    for k, v in logs.items():\n"
        "        writer.add_scalar(k, v, step)\n"
        "    torch.cuda.empty_cache()\n"
        "for step, x in enumerate(loader):\n"
        "    model(x).mean().backward()\n"
        "    optimizer.step()\n"
        "    optimizer.zero_grad()\n"
        "    after_step(step, {'lr': 0.1})  # expect: TL201\n"
        "    write_scalars(tb_writer, {'lr': 0.1}, step)  # expect: TL201\n",
        # a model compiled or wrapped for data parallelism where it is built still runs its forward
        "import torch\n"
        "class Net(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        torch.cuda.empty_cache()\n"
        "        return self.body(x)\n"
        "def train(loader, optimizer):\n"
        "    model = torch.compile(Net().cuda())\n"
        "    replicas = torch.nn.DataParallel(Net())\n"
        "    for x in loader:\n"
        "        model(x).sum().backward()  # expect: TL201\n"
        "        replicas(x).sum().backward()  # expect: TL201\n"
        "        optimizer.step()\n",
        # compiled or wrapped where it is called, with no name bound: the call still runs its forward
        "import torch\n"
        "from torch import nn\n"
        "class Net(nn.Module):\n"
        "    def forward(self, x):\n"
        "        torch.cuda.empty_cache()\n"
        "        return self.body(x)\n"
        "def train(loader, optimizer):\n"
        "    model = Net().cuda()\n"
        "    for x in loader:\n"
        "        torch.compile(Net())(x).sum().backward()  # expect: TL201\n"
        "        nn.DataParallel(model.cuda())(x).sum().backward()  # expect: TL201\n"
        "        optimizer.step()\n",
        # a fresh head each step, but the backbone and the optimizer carry on; a model
        # built only on the first iteration (lazily) is trained by every later one
        Example(
            "import torch\n"
            "from heads import Head\n"
            "from models import Net\n"
            "def train(backbone, loader, optimizer):\n"
            "    for x, y in loader:\n"
            "        head = Head().cuda()\n"
            "        loss = head(backbone(x)).sum()\n"
            "        loss.backward()\n"
            "        optimizer.step()\n"
            "        optimizer.zero_grad()\n"
            "        torch.cuda.empty_cache()  # expect: TL201\n"
            "def fit(loader):\n"
            "    model = None\n"
            "    for x in loader:\n"
            "        if model is None:\n"
            "            model = Net().cuda()\n"
            "        model(x).sum().backward()\n"
            "        torch.cuda.empty_cache()  # expect: TL201\n",
            fixed="import torch\n"
            "from heads import Head\n"
            "from models import Net\n"
            "def train(backbone, loader, optimizer):\n"
            "    for x, y in loader:\n"
            "        head = Head().cuda()\n"
            "        loss = head(backbone(x)).sum()\n"
            "        loss.backward()\n"
            "        optimizer.step()\n"
            "        optimizer.zero_grad()\n"
            "def fit(loader):\n"
            "    model = None\n"
            "    for x in loader:\n"
            "        if model is None:\n"
            "            model = Net().cuda()\n"
            "        model(x).sum().backward()\n",
        ),
        # the step's helper takes log-probabilities a chunk at a time with torch.nn.functional
        "import torch\n"
        "import torch.nn.functional as F\n"
        "def chunked_logprobs(logits, tokens, chunk=4):\n"
        "    out = torch.empty_like(tokens, dtype=torch.float32)\n"
        "    for start in range(0, logits.size(0), chunk):\n"
        "        logp = F.log_softmax(logits[start:start + chunk], dim=-1)\n"
        "        out[start:start + chunk] = torch.gather(logp, 2, tokens[start:start + chunk, None]).squeeze(-1)\n"
        "    return out\n"
        "class Recipe:\n"
        "    def step(self, batch):\n"
        "        torch.cuda.empty_cache()\n"
        "        chunked_logprobs(self.model(batch), batch).mean().backward()\n"
        "    def train(self):\n"
        "        for batch in self.loader:\n"
        "            self.step(batch)  # expect: TL201\n"
        "            self.optimizer.step()\n"
        "            self.optimizer.zero_grad()\n",
        # an override that a base class's loop runs (its line is reported)
        'import torch\n'
        'class Trainer:\n'
        '    def on_step_end(self):\n'
        '        pass\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            self.model(x).mean().backward()\n'
        '            self.optimizer.step()\n'
        '            self.on_step_end()\n'
        'class TidyTrainer(Trainer):\n'
        '    def on_step_end(self):\n'
        '        torch.cuda.empty_cache()  # expect: TL201\n',
        # the base class leaves the training step to its subclasses (`self.training_step(x)`, none of its own)
        'import torch\n'
        'class Trainer:\n'
        '    def on_step_end(self):\n'
        '        pass\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            self.training_step(x)\n'
        '            self.on_step_end()\n'
        'class TidyTrainer(Trainer):\n'
        '    def training_step(self, x):\n'
        '        self.optimizer.zero_grad()\n'
        '        self.model(x).mean().backward()\n'
        '        self.optimizer.step()\n'
        '    def on_step_end(self):\n'
        '        torch.cuda.empty_cache()  # expect: TL201\n',
        # a call of the loop already reported as emptying the cache (`self.zero_grad()` runs the
        # subclass's) is the one finding: its override is not reported again
        'import torch\n'
        'import torch.nn as nn\n'
        'class Trainer(nn.Module):\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            self.zero_grad()  # expect: TL201\n'
        '            self(x).mean().backward()\n'
        '            self.opt.step()\n'
        'class Net(Trainer):\n'
        '    def zero_grad(self):\n'
        '        torch.cuda.empty_cache()\n'
        '        super().zero_grad()\n',
    )
    good = (
        # a period around the call alone: the author chose when it runs
        "import torch\n"
        "optimizer = torch.optim.AdamW(model.parameters())\n"
        "for i, (x, y) in enumerate(loader):\n"
        "    criterion(model(x), y).backward()\n"
        "    optimizer.step()\n"
        "    optimizer.zero_grad()\n"
        "    if (i + 1) % 1000 == 0:\n"
        "        torch.cuda.empty_cache()\n",
        # a condition beside the step's, not the one it runs under
        "import torch\n"
        "for global_step in range(total_steps):\n"
        "    if global_step > learning_starts:\n"
        "        criterion(q(batch.obs), batch.target).backward()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n"
        "    if global_step > learning_starts and args.free_memory:\n"
        "        torch.cuda.empty_cache()\n",
        # a loop over phases whose batches are a loop of their own: an epoch loop
        "import torch\n"
        "for epoch in range(epochs):\n"
        "    for phase in ['train', 'val']:\n"
        "        for x, y in loaders[phase]:\n"
        "            criterion(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "            optimizer.zero_grad()\n"
        "    torch.cuda.empty_cache()\n",
        # an opt-in flag, a one-shot guard: the author chose when it runs
        "import torch\n"
        "class Trainer:\n"
        "    def fit(self):\n"
        "        for step, batch in enumerate(self.loader):\n"
        "            self.model(batch).mean().backward()\n"
        "            if self.args.clear_cache:\n"
        "                torch.cuda.empty_cache()\n"
        "            if self.global_step == 0:\n"
        "                torch.cuda.empty_cache()\n",
        # a loop over loggers, not a training loop
        "import torch\n"
        "for tracker in accelerator.trackers:\n"
        "    tracker.log(images)\n"
        "    torch.cuda.empty_cache()\n",
        "import torch\n"
        "for x, y in loader:\n"
        "    loss = model(x).sum()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "torch.cuda.empty_cache()\n",
        "import torch\n"
        "for step, batch in enumerate(loader):\n"
        "    train_step(batch)\n"
        "    if step % 100 == 0:\n"
        "        torch.cuda.empty_cache()\n",
        "import torch\n"
        "for batch in loader:\n"
        "    try:\n"
        "        train_step(batch)\n"
        "    except torch.cuda.OutOfMemoryError:\n"
        "        torch.cuda.empty_cache()\n",
        "import torch\n"
        "for batch in loader:\n"
        "    try:\n"
        "        train_step(batch)\n"
        "    except RuntimeError as e:\n"
        "        if 'out of memory' in str(e):\n"
        "            torch.cuda.empty_cache()\n",
        "def empty_cache():\n"
        "    pass\n"
        "for batch in loader:\n"
        "    empty_cache()\n",
        "import torch\n"
        "for batch in loader:\n"
        "    # torch.cuda.empty_cache()\n"
        "    def cleanup():\n"
        "        torch.cuda.empty_cache()\n"
        "    train_step(batch)\n",
        "import torch\n"
        "for run in range(num_runs):\n"
        "    model = build_model().cuda()\n"
        "    torch.cuda.empty_cache()\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in loader:\n"
        "            train_step(model, x, y)\n",
        # a helper whose loop prints what a model computes is an evaluation, a phase
        "import torch\n"
        "def show_samples(model, batches):\n"
        "    for x in batches:\n"
        "        print(model(x).argmax())\n"
        "    torch.cuda.empty_cache()\n"
        "for x in loader:\n"
        "    model(x).sum().backward()\n"
        "    optimizer.step()\n"
        "    show_samples(model, samples)\n",
        # helpers that empty the cache only now and then, or once per phase
        "import torch\n"
        "class Cleaner:\n"
        "    def step(self):\n"
        "        self.calls += 1\n"
        "        if self.calls > 100:\n"
        "            torch.cuda.empty_cache()\n"
        "def run_epoch(loader):\n"
        "    for x in loader:\n"
        "        step(x)\n"
        "    torch.cuda.empty_cache()\n"
        "def main(loader):\n"
        "    cleaner = Cleaner()\n"
        "    for epoch in range(10):\n"
        "        run_epoch(loader)\n"
        "        cleaner.step()\n"
        "        torch.cuda.empty_cache()\n",
        "import torch\n"
        "n = 0\n"
        "for batch in loader:\n"
        "    n += 1\n"
        "    if n > 1000:\n"
        "        torch.cuda.empty_cache()\n",
        # the method a subclass inherits first, or overrides, does not empty the cache
        "import torch\n"
        "class BaseTrainer:\n"
        "    def free_memory(self):\n"
        "        torch.cuda.empty_cache()\n"
        "class Recorder:\n"
        "    def free_memory(self):\n"
        "        self.frames.clear()\n"
        "class RecordingTrainer(Recorder, BaseTrainer):\n"
        "    def fit(self, loader):\n"
        "        for x in loader:\n"
        "            self.model(x).sum().backward()\n"
        "            self.optimizer.step()\n"
        "            self.free_memory()\n"
        "class LightTrainer(BaseTrainer):\n"
        "    def free_memory(self):\n"
        "        self.cache = None\n"
        "    def fit(self, loader):\n"
        "        for x in loader:\n"
        "            self.model(x).sum().backward()\n"
        "            self.optimizer.step()\n"
        "            self.free_memory()\n",
        # helpers that choose when they empty it, as a condition in the loop would
        "import torch\n"
        "def free_if_needed(threshold=0.9):\n"
        "    total = torch.cuda.get_device_properties(0).total_memory\n"
        "    if torch.cuda.memory_reserved() > threshold * total:\n"
        "        torch.cuda.empty_cache()\n"
        "def cleanup(args):\n"
        "    if args.clear_cache and torch.cuda.is_available():\n"
        "        torch.cuda.empty_cache()\n"
        "def train(model, loader, opt, args):\n"
        "    for x in loader:\n"
        "        opt.zero_grad()\n"
        "        model(x).sum().backward()\n"
        "        opt.step()\n"
        "        free_if_needed()\n"
        "        cleanup(args)\n",
        # the period is the helper's, around a call of another helper that frees
        "import torch\n"
        "def free_memory():\n"
        "    torch.cuda.empty_cache()\n"
        "def maybe_free_memory(step, every=100):\n"
        "    if step % every == 0:\n"
        "        free_memory()\n"
        "def train(model, loader, optimizer):\n"
        "    for step, x in enumerate(loader):\n"
        "        optimizer.zero_grad()\n"
        "        model(x).sum().backward()\n"
        "        optimizer.step()\n"
        "        maybe_free_memory(step)\n",
        # each model trained for a whole epoch in turn: the cache is emptied once per model per epoch
        "import torch\n"
        "def train(models, loader, epochs):\n"
        "    for epoch in range(epochs):\n"
        "        for model, opt in models:\n"
        "            for x in loader:\n"
        "                opt.zero_grad()\n"
        "                model(x).sum().backward()\n"
        "                opt.step()\n"
        "            torch.cuda.empty_cache()\n",
        # full-batch descent: each model's inner loop is a whole pass over the loader, the cache emptied once per epoch
        "import torch\n"
        "def full_batch_descent(models, loader, epochs):\n"
        "    for epoch in range(epochs):\n"
        "        for model, opt in models:\n"
        "            opt.zero_grad()\n"
        "            for x, y in loader:\n"
        "                torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "            opt.step()\n"
        "        torch.cuda.empty_cache()\n",
        # a scheduler stepped with the epoch: the epoch loop is no loop over the parts of one step
        "import torch\n"
        "def train(model, opt, scheduler, batches, epochs):\n"
        "    for epoch in range(epochs):\n"
        "        for x, y in batches:\n"
        "            opt.zero_grad()\n"
        "            torch.nn.functional.cross_entropy(model(x), y).backward()\n"
        "            opt.step()\n"
        "        scheduler.step(epoch)\n"
        "        torch.cuda.empty_cache()\n",
        # full-batch descent over a loader named `train_dl`
        "import torch\n"
        "def full_batch_descent(models, train_dl, epochs):\n"
        "    for epoch in range(epochs):\n"
        "        for model, opt in models:\n"
        "            opt.zero_grad()\n"
        "            for x, y in train_dl:\n"
        "                torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "            opt.step()\n"
        "        torch.cuda.empty_cache()\n",
        # the helper that empties the cache is nested in another function: the loop's
        # `cleanup` is its own, a lambda that only collects garbage
        "import gc\n"
        "import torch\n"
        "def fit(model, loader, opt):\n"
        "    cleanup = lambda: gc.collect()\n"
        "    for batch in loader:\n"
        "        opt.zero_grad()\n"
        "        model(batch).mean().backward()\n"
        "        opt.step()\n"
        "        cleanup()\n"
        "def shutdown():\n"
        "    def cleanup():\n"
        "        torch.cuda.empty_cache()\n"
        "    cleanup()\n",
        # nor is a function's parameter the nested helper of another function
        "import torch\n"
        "def fit(model, loader, opt, cleanup):\n"
        "    for batch in loader:\n"
        "        opt.zero_grad()\n"
        "        model(batch).mean().backward()\n"
        "        opt.step()\n"
        "        cleanup()\n"
        "def shutdown():\n"
        "    def cleanup():\n"
        "        torch.cuda.empty_cache()\n"
        "    cleanup()\n",
        # lambdas that empty the cache: one called after the loop, one only past a memory threshold
        "import torch\n"
        "def fit(model, loader, opt, limit):\n"
        "    free = lambda: torch.cuda.empty_cache()\n"
        "    relieve = lambda: torch.cuda.empty_cache() if torch.cuda.memory_reserved() > limit else None\n"
        "    for batch in loader:\n"
        "        opt.zero_grad()\n"
        "        model(batch).mean().backward()\n"
        "        opt.step()\n"
        "        relieve()\n"
        "    free()\n",
        # a helper whose loop logs what a model computes is an evaluation, a phase; a
        # method named like a logger's on something else is no log
        "import logging\n"
        "import torch\n"
        "logger = logging.getLogger(__name__)\n"
        "def show_samples(model, batches):\n"
        "    for x in batches:\n"
        "        logger.info('prediction %s', model(x).argmax())\n"
        "    torch.cuda.empty_cache()\n"
        "def refresh(buffers):\n"
        "    for buffer in buffers:\n"
        "        buffer.info()\n"
        "    torch.cuda.empty_cache()\n"
        "for x in loader:\n"
        "    model(x).sum().backward()\n"
        "    optimizer.step()\n"
        "    show_samples(model, samples)\n"
        "    refresh(replay_buffers)\n",
        # a compiled model whose forward empties the cache only on out-of-memory, or one
        # called once before the loop
        "import torch\n"
        "class Net(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        try:\n"
        "            return self.body(x)\n"
        "        except torch.cuda.OutOfMemoryError:\n"
        "            torch.cuda.empty_cache()\n"
        "            return self.body(x[: len(x) // 2])\n"
        "class Probe(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        torch.cuda.empty_cache()\n"
        "        return self.body(x)\n"
        "def train(loader, optimizer):\n"
        "    model = torch.compile(Net())\n"
        "    probe = torch.compile(Probe())\n"
        "    probe(next(iter(loader)))\n"
        "    for x in loader:\n"
        "        model(x).sum().backward()\n"
        "        optimizer.step()\n",
        # compiled or wrapped where it is called, but its forward does not empty the cache
        "import torch\n"
        "from torch import nn\n"
        "class Net(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return self.body(x)\n"
        "def train(loader, optimizer):\n"
        "    model = Net().cuda()\n"
        "    for x in loader:\n"
        "        torch.compile(Net())(x).sum().backward()\n"
        "        nn.DataParallel(model.cuda())(x).sum().backward()\n"
        "        optimizer.step()\n",
        # each iteration builds its own model (and optimizer): a sweep of separate runs, a
        # batch-size probe that frees one trial's memory before the next, larger one
        "import torch\n"
        "from previous_chapters import GPTModel\n"
        "def largest_batch(config, device):\n"
        "    low, high = 1, 4096\n"
        "    while low <= high:\n"
        "        batch_size = (low + high) // 2\n"
        "        try:\n"
        "            model = GPTModel(config).bfloat16().to(device)\n"
        "            out = model(torch.randint(0, 50257, (batch_size, 1024), device=device))\n"
        "            out.sum().backward()\n"
        "            low = batch_size + 1\n"
        "            del model, out\n"
        "            torch.cuda.empty_cache()\n"
        "        except torch.cuda.OutOfMemoryError:\n"
        "            high = batch_size - 1\n"
        "    return high\n"
        "def time_steps(configs, x):\n"
        "    for config in configs:\n"
        "        model = GPTModel(config).cuda()\n"
        "        optimizer = torch.optim.AdamW(model.parameters())\n"
        "        model(x).sum().backward()\n"
        "        optimizer.step()\n"
        "        torch.cuda.empty_cache()\n",
        # overrides of a base class's hooks that do it right, or that the loop runs now and then or by name
        'import torch\n'
        'class Trainer:\n'
        '    def on_step_end(self):\n'
        '        pass\n'
        '    def fit(self, loader):\n'
        '        for step, x in enumerate(loader):\n'
        '            self.model(x).mean().backward()\n'
        '            self.optimizer.step()\n'
        '            self.on_step_end()\n'
        '            if step % 1000 == 0:\n'
        '                self.on_log()\n'
        '    def on_log(self):\n'
        '        print(torch.cuda.memory_allocated())\n'
        'class TidyTrainer(Trainer):\n'
        '    def on_step_end(self):\n'
        '        if torch.cuda.memory_reserved() > self.limit:\n'
        '            torch.cuda.empty_cache()\n'
        '    def on_log(self):\n'
        '        torch.cuda.empty_cache()\n',
        # `self.training_step` is a function the trainer is given, not a method: nothing tells
        # that the loop trains
        'import torch\n'
        'class Trainer:\n'
        '    def __init__(self, step):\n'
        '        self.training_step = step\n'
        '    def on_step_end(self):\n'
        '        pass\n'
        '    def fit(self, loader):\n'
        '        for x in loader:\n'
        '            self.training_step(x)\n'
        '            self.on_step_end()\n'
        'class TidyTrainer(Trainer):\n'
        '    def on_step_end(self):\n'
        '        torch.cuda.empty_cache()\n',
    )

    def finish(self) -> None:
        for node in self.ctx.nodes_of(cst.Call):
            direct = empties_cache(self.ctx, node)  # type: ignore[arg-type]
            if direct or self._helper_empties_cache(node) or self._lambda_empties_cache(node):  # type: ignore[arg-type]
                self._check(node, direct)  # type: ignore[arg-type]
        for run in hook_runs(self.ctx):
            if not run.call.occasional and run.summary.does(EMPTY_CACHE) and run.trains():
                self._check_override(run)

    def _check_override(self, run: HookRun) -> None:
        """An override a base class's training loop calls on every iteration, emptying
        the cache on every call of its own: the call in it is reported (see `hook_runs`)."""
        for call in self.ctx.calls_in_order(run.function.body):
            direct = empties_cache(self.ctx, call)
            if (direct or self._helper_empties_cache(call)) and runs_on_every_call(self.ctx, call, run.function):
                self.report(call, _IN_HOOK.format(run.names()) if direct else _THROUGH_HELPER.format(
                    self.ctx.code(call.func)))

    def _helper_empties_cache(self, call: cst.Call) -> bool:
        summary = self.ctx.summaries.of_call(call)
        # a helper that runs a loop of its own is a phase, as an inner loop is
        return summary is not None and summary.does(EMPTY_CACHE) and not summary.does(LOOP)

    def _lambda_empties_cache(self, call: cst.Call) -> bool:
        """`free()` of `free = lambda: torch.cuda.empty_cache()`: the lambda empties
        the cache on every run (not under a condition of its own)."""
        lam = called_lambda(self.ctx, call)
        return lam is not None and any(empties_cache(self.ctx, inner) or self._helper_empties_cache(inner)
                                       for inner in lambda_calls(lam))

    def _check(self, node: cst.Call, direct: bool) -> None:
        guards = loop_guards(self.ctx, node)
        if guards is None:
            return
        loop, _ = guards
        if not self._runs_with_each_step(node, loop):
            return
        if not steps_each_iteration(self.ctx, loop):
            return
        if builds_its_model_each_iteration(self.ctx, loop):
            return
        if direct:
            # another accelerator's cache (`torch.xpu.empty_cache()`) is named as called
            called = self.ctx.call_name(node)
            other = called is not None and called != "torch.cuda.empty_cache"
            self.report(node, self.message.replace("torch.cuda.empty_cache", called) if other else None,
                        fix=self._removal(node))
        else:
            self.report(node, _THROUGH_HELPER.format(self.ctx.code(node.func)))

    def _runs_with_each_step(self, node: cst.Call, loop: cst.For | cst.While) -> bool:
        """Every condition between `node` and `loop` holds on each iteration of a
        GPU run (a device check), or is the condition the training step itself runs
        under: `node` is in the body (or the `else:`) of an `if` that back-propagates
        or steps there (a warm-up threshold, `if global_step > learning_starts:`, a training frequency
        `if global_step % train_frequency == 0:`, the step of gradient accumulation):
        it runs with every optimizer step. Any other condition the author wrote (a
        period or a flag around the call alone, a one-shot `if step == 0`, a memory
        threshold) chooses when it runs."""
        child: cst.CSTNode = node
        for ancestor in self.ctx.ancestors(node):
            if ancestor is loop:
                return True
            if type(ancestor) in (cst.If, cst.IfExp) and child is not ancestor.test:  # type: ignore[attr-defined]
                test = ancestor.test  # type: ignore[attr-defined]
                arm = (child if type(ancestor) is cst.If and child is ancestor.body
                       else child.body if type(child) is cst.Else else None)  # type: ignore[attr-defined]
                if not is_device_check(self.ctx, test) and not (arm is not None and trains_each_run(self.ctx, arm)):
                    return False
            child = ancestor
        return True

    def _removal(self, call: cst.Call) -> Fix | None:
        statement = self.ctx.parent(self.ctx.parent(call) or call)
        if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
            return None
        if statement.body[0].value is not call:  # type: ignore[union-attr]
            return None
        block = self.ctx.parent(statement)
        if type(block) is cst.IndentedBlock and len(block.body) == 1:
            return Fix({statement: statement.with_changes(body=[cst.Pass()])}, safety="unsafe")
        return Fix({statement: cst.RemoveFromParent()}, safety="unsafe")
