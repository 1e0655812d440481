"""Findings whose obvious fix would change what the program does: the finding
stays, the fix is not offered. Each case was offered a "safe" fix that made the
program raise; beside them, near cases where the fix stays."""

from __future__ import annotations

import pytest

from trainlint.registry import by_code
from trainlint.rule import expected_marks
from trainlint.testing import findings_of, fixed_source

_LOOP = (
    "import torch\n"
    "def train(model, loader, opt, scaler, accum, opt2):\n"
    "    for i, (x, y) in enumerate(loader):\n"
    "        with torch.autocast('cuda'):\n"
    "            loss = model(x, y)\n"
    "        scaler.scale(loss).backward()\n"
)

REFUSED = [
    # an unscale_ already follows the clip: a second one before update() raises
    ("TL101", _LOOP + "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
                      "        scaler.unscale_(opt)\n"
                      "        scaler.step(opt)\n"
                      "        scaler.update()\n"),
    # gradient accumulation: an unscale_ on every micro-step, update() on every N-th
    ("TL101", _LOOP + "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
                      "        if (i + 1) % accum == 0:\n"
                      "            scaler.step(opt)\n"
                      "            scaler.update()\n"
                      "            opt.zero_grad()\n"),
    # a skipped step: the next iteration's unscale_ would come before any update()
    ("TL101", _LOOP + "        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
                      "        if not torch.isfinite(norm):\n"
                      "            opt.zero_grad()\n"
                      "            continue\n"
                      "        scaler.step(opt)\n"
                      "        scaler.update()\n"),
    # a helper of the file unscales again later in the iteration: the inserted one comes first
    ("TL101", "def log_grads(scaler, opt):\n"
              "    scaler.unscale_(opt)\n"
              + _LOOP + "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
                        "        log_grads(scaler, opt)\n"
                        "        scaler.step(opt)\n"
                        "        scaler.update()\n"),
    # the scaler handed to code the file cannot see, which may unscale it
    ("TL101", _LOOP + "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
                      "        hooks.after_clip(scaler, opt)\n"
                      "        scaler.step(opt)\n"
                      "        scaler.update()\n"),
    # a second scaled backward after the clip: the step would no longer unscale its gradients
    ("TL101", _LOOP + "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
                      "        scaler.scale(aux_loss).backward()\n"
                      "        scaler.step(opt)\n"
                      "        scaler.update()\n"),
    # ... or through a helper of the file, or a `backward` method of anything
    ("TL101", "def aux_backward(model, x, scaler):\n"
              "    scaler.scale(model(x).mean()).backward()\n"
              + _LOOP + "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
                        "        aux_backward(model, x, scaler)\n"
                        "        scaler.step(opt)\n"
                        "        scaler.update()\n"),
    ("TL101", _LOOP + "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
                      "        accelerator.backward(aux_loss)\n"
                      "        scaler.step(opt)\n"
                      "        scaler.update()\n"),
    # a generator left at its `yield` between the clip and the step: unscaled, never updated
    ("TL101", _LOOP + "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
                      "        yield loss.item()\n"
                      "        scaler.step(opt)\n"
                      "        scaler.update()\n"),
    # a loss object of the file's own class, back-propagated by its own backward(): no detach()
    ("TL202", "class MultiTaskLoss:\n"
              "    def __init__(self, **terms):\n"
              "        self.terms = terms\n"
              "    def backward(self):\n"
              "        sum(self.terms.values()).backward()\n"
              "history = []\n"
              "for x in loader:\n"
              "    out = model(x)\n"
              "    loss = MultiTaskLoss(main=out.sum(), reg=out.pow(2).sum())\n"
              "    loss.backward()\n"
              "    history.append(loss)  # expect: TL202\n"
              "print(len(history))\n"),
    # the total's object held under another name by an `or`: a tensor's `+=` changes both
    ("TL202", "total = 0.0\n"
              "for epoch in range(2):\n"
              "    before = total or 0.0\n"
              "    for x in loader:\n"
              "        loss = model(x).sum()\n"
              "        loss.backward()\n"
              "        total += loss  # expect: TL202\n"
              "    print(float(total - before))\n"),
    # a sampler class of the file whose `__new__` may return None (the call did not raise)
    ("TL304", "from torch.utils.data import DataLoader, Sampler\n"
              "class ShardSampler(Sampler):\n"
              "    def __new__(cls, data):\n"
              "        return super().__new__(cls) if DISTRIBUTED else None\n"
              "loader = DataLoader(ds, batch_size=3, sampler=ShardSampler(ds), shuffle=True)  # expect: TL304\n"),
    # ... or that a class decorator replaces by a factory
    ("TL304", "from torch.utils.data import DataLoader, Sampler\n"
              "@only_when_distributed\n"
              "class ShardSampler(Sampler):\n"
              "    pass\n"
              "loader = DataLoader(ds, batch_size=3, sampler=ShardSampler(ds), shuffle=True)  # expect: TL304\n"),
    # the losses saved as they are: a detached copy would load without its requires_grad
    ("TL202", "import torch\n"
              "losses = []\n"
              "for x in loader:\n"
              "    loss = model(x).sum()\n"
              "    loss.backward()\n"
              "    losses.append(loss)  # expect: TL202\n"
              "torch.save(losses, 'losses.pt')\n"),
    # the loss module reconfigured under another name: its losses are per element
    ("TL202", "from torch import nn\n"
              "criterion = nn.MSELoss()\n"
              "per_element = criterion\n"
              "per_element.reduction = 'none'\n"
              "total = 0.0\n"
              "for x, y in loader:\n"
              "    loss = criterion(model(x), y)\n"
              "    loss.mean().backward()\n"
              "    total += loss  # expect: TL202\n"
              "print(total)\n"),
    # two optimizers: update() belongs once after both steps
    ("TL104", _LOOP + "        scaler.step(opt)\n"
                      "        scaler.step(opt2)  # expect: TL104\n"
                      "        opt.zero_grad()\n"),
    # a scaler the function is given: its caller may update it once per epoch
    ("TL104", _LOOP + "        scaler.step(opt)  # expect: TL104\n"
                      "        opt.zero_grad()\n"),
    # the file updates a scaler elsewhere, under another name (once per epoch)
    ("TL104", "import torch\n"
              "def train_epoch(scaler, loader):\n"
              "    for i, x in enumerate(loader):\n"
              "        scaler.scale(model(x).sum()).backward()\n"
              "        scaler.step(opt)  # expect: TL104\n"
              "def main(loader):\n"
              "    grad_scaler = torch.amp.GradScaler('cuda')\n"
              "    for epoch in range(2):\n"
              "        train_epoch(grad_scaler, loader)\n"
              "        grad_scaler.update()\n"),
    # built from a class of the project (whose step() may update)
    ("TL104", "import torch\n"
              "from amp_ext import AutoUpdatingScaler\n"
              "scaler = AutoUpdatingScaler('cuda')\n"
              "for x in loader:\n"
              "    scaler.scale(model(x).sum()).backward()\n"
              "    scaler.step(opt)  # expect: TL104\n"),
    # a step in a `try` whose handler may rely on the error of a second step, or in an assert
    ("TL104", "import torch\n"
              "scaler = torch.amp.GradScaler('cuda')\n"
              "for x in loader:\n"
              "    scaler.scale(model(x).sum()).backward()\n"
              "    try:\n"
              "        scaler.step(opt)  # expect: TL104\n"
              "    except RuntimeError:\n"
              "        print('skipped')\n"),
    ("TL104", "import torch\n"
              "scaler = torch.amp.GradScaler('cuda')\n"
              "for x in loader:\n"
              "    scaler.scale(model(x).sum()).backward()\n"
              "    assert scaler.step(opt) is None  # expect: TL104\n"),
    # a loop over the optimizers: an update() inside it would run once per optimizer
    ("TL104", _LOOP + "        for o in (opt, opt2):\n"
                      "            scaler.step(o)  # expect: TL104\n"
                      "            o.zero_grad()\n"),
    # shuffle by position: dropping the `True` would move the sampler into its slot
    ("TL304", "from torch.utils.data import DataLoader\n"
              "loader = DataLoader(ds, 32, True, sampler)  # expect: TL304\n"),
    # the mean is read as a tensor afterwards: a float has no .cpu(), torch.log takes tensors
    ("TL202", "import torch\n"
              "import torch.nn.functional as F\n"
              "running = 0\n"
              "for step, (x, y) in enumerate(loader):\n"
              "    loss = F.cross_entropy(model(x), y)\n"
              "    loss.backward()\n"
              "    opt.step()\n"
              "    opt.zero_grad()\n"
              "    running = running + loss  # expect: TL202\n"
              "mean = running / (step + 1)\n"
              "print(mean.cpu(), torch.log(mean))\n"),
    # per-sample losses from a loss module built to keep them: `.item()` of 8 values raises
    ("TL202", "from torch import nn\n"
              "criterion = nn.CrossEntropyLoss(reduction='none')\n"
              "total = 0\n"
              "for x, y in loader:\n"
              "    loss = criterion(model(x), y)\n"
              "    total += loss  # expect: TL202\n"
              "    loss.mean().backward()\n"
              "    opt.step()\n"
              "print(total)\n"),
    # options the rule cannot read: the module's reduction may be anything
    ("TL202", "from torch import nn\n"
              "criterion = nn.MSELoss(**loss_options)\n"
              "total = 0\n"
              "for x, y in loader:\n"
              "    loss = criterion(model(x), y)\n"
              "    total += loss  # expect: TL202\n"
              "    loss.mean().backward()\n"
              "    opt.step()\n"
              "print(total)\n"),
    # a plain number on one path: `sum([0.0])` is a float, which has no `.item()`
    ("TL202", "import torch\n"
              "total = 0.0\n"
              "for x, y in loader:\n"
              "    if len(x) == 0:\n"
              "        loss = sum([0.0])\n"
              "    else:\n"
              "        loss = torch.nn.functional.mse_loss(model(x), y)\n"
              "        loss.backward()\n"
              "    total += loss  # expect: TL202\n"
              "print(total)\n"),
    # `or` may give the number
    ("TL202", "import torch\n"
              "total = 0\n"
              "for x, y in loader:\n"
              "    loss = model(x).get('loss') or 0.0\n"
              "    loss.backward()\n"
              "    total += loss  # expect: TL202\n"
              "print(total)\n"),
    # the code itself asks whether the loss is a tensor
    ("TL202", "import torch\n"
              "total = 0\n"
              "for x, y in loader:\n"
              "    loss = compute_loss(model, x, y)\n"
              "    if torch.is_tensor(loss):\n"
              "        loss.backward()\n"
              "    total += loss  # expect: TL202\n"
              "print(total)\n"),
    # a one-element total iterated, or measured, as a tensor: a float cannot be
    ("TL202", "import torch\n"
              "total = 0\n"
              "for x, y in loader:\n"
              "    loss = ((model(x) - y) ** 2).mean(0)\n"
              "    loss.backward()\n"
              "    total += loss  # expect: TL202\n"
              "for value in total:\n"
              "    print(value)\n"),
    ("TL202", "import torch\n"
              "total = 0\n"
              "for x, y in loader:\n"
              "    loss = ((model(x) - y) ** 2).mean(0)\n"
              "    loss.backward()\n"
              "    total += loss  # expect: TL202\n"
              "print(len(total))\n"),
    # a module's total read by a function of the module: not checked there
    ("TL202", "import torch\n"
              "total = 0\n"
              "def report():\n"
              "    print('total', total)\n"
              "for x, y in loader:\n"
              "    loss = torch.nn.functional.mse_loss(model(x), y)\n"
              "    loss.backward()\n"
              "    total += loss  # expect: TL202\n"
              "report()\n"),
    # the losses' graphs read after the loop: `.detach()` would change them
    ("TL202", "import torch\n"
              "losses = []\n"
              "for x, y in loader:\n"
              "    loss = torch.nn.functional.mse_loss(model(x), y)\n"
              "    loss.backward()\n"
              "    losses.append(loss)  # expect: TL202\n"
              "print([l.grad_fn for l in losses])\n"),
]

KEPT = [
    # the clip under a condition, the step and update after it, unconditionally
    ("TL101", _LOOP + "        if accum:\n"
                      "            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
                      "        scaler.step(opt)\n"
                      "        scaler.update()\n",
     "            scaler.unscale_(opt)\n"),
    # a helper given only what the scaler reads, not the scaler: nothing else unscales
    ("TL101", _LOOP + "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TL101\n"
                      "        hooks.log_scale(scaler.get_scale())\n"
                      "        scaler.step(opt)\n"
                      "        scaler.update()\n",
     "        scaler.unscale_(opt)\n"),
    # one step, under the accumulation condition: update() goes right after it
    ("TL104", _LOOP.replace("    for i,", "    scaler = torch.amp.GradScaler('cuda')\n    for i,")
     + "        if (i + 1) % accum == 0:\n"
                      "            scaler.step(opt)  # expect: TL104\n"
                      "            opt.zero_grad()\n",
     "            scaler.update()\n"),
    # a loss module that sums: one number, `.item()` keeps the total the same
    ("TL202", "from torch import nn\n"
              "criterion = nn.CrossEntropyLoss(reduction='sum')\n"
              "total = 0\n"
              "for x, y in loader:\n"
              "    loss = criterion(model(x), y)\n"
              "    total += loss  # expect: TL202\n"
              "    (loss / len(x)).backward()\n"
              "    opt.step()\n"
              "print(total)\n",
     ".item()"),
    # a loss on every path, whichever loss call gives it; a function of the module
    # that never names the total
    ("TL202", "import torch.nn.functional as F\n"
              "def log(value):\n"
              "    print(value)\n"
              "total = 0\n"
              "for x, y in loader:\n"
              "    loss = F.mse_loss(model(x), y) if smooth else F.l1_loss(model(x), y)\n"
              "    loss.backward()\n"
              "    total += loss  # expect: TL202\n"
              "print(f'{total / len(loader):.3f}')\n",
     ".item()"),
    # a list of the function's own, bound there
    ("TL202", "import torch.nn.functional as F\n"
              "def train(model, loader, opt):\n"
              "    losses = []\n"
              "    for x, y in loader:\n"
              "        loss = F.cross_entropy(model(x), y)\n"
              "        loss.backward()\n"
              "        opt.step()\n"
              "        losses.append(loss)  # expect: TL202\n"
              "    print(len(losses))\n",
     ".detach()"),
]


@pytest.mark.parametrize(("code", "source"), REFUSED)
def test_no_fix_where_it_would_change_the_program(code: str, source: str) -> None:
    rule = by_code()[code]
    findings = findings_of(rule, source)
    assert {(f.line, f.code) for f in findings} == expected_marks(source)
    assert not any(f.fixable for f in findings)
    assert fixed_source(rule, source, unsafe=True) == source


@pytest.mark.parametrize(("code", "source", "inserted"), KEPT)
def test_the_fix_stays_where_it_is_safe(code: str, source: str, inserted: str) -> None:
    rule = by_code()[code]
    findings = findings_of(rule, source)
    assert {(f.line, f.code) for f in findings} == expected_marks(source)
    fixed = fixed_source(rule, source)
    assert fixed.replace(inserted, "", 1) == source and inserted in fixed
