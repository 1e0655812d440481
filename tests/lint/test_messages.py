"""What a finding says names what the user wrote: the optimizer to clear, and
the loop a step runs in when the step sits in a method that loop calls."""

from __future__ import annotations

from trainlint.engine import lint_bytes
from trainlint.registry import all_rules


def _messages(source: str, code: str) -> list[tuple[int, str]]:
    findings = lint_bytes("input.py", source.encode("utf-8"), list(all_rules())).findings
    return [(f.line, f.message) for f in findings if f.code == code]


TRAINER = """\
import torch


class Trainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.AdamW(model.parameters())

    def run_loop(self, data):
        for batch in data:
            self.run_step(batch)

    def run_step(self, batch):
        self.model(batch).mean().backward()
        self.opt.step()
"""


def test_a_step_in_a_method_names_the_loop_that_calls_it_and_the_optimizer() -> None:
    assert _messages(TRAINER, "TL401") == [(15, (
        "this step runs on each iteration of the loop in `run_loop()`, which back-propagates and never "
        "clears gradients: they accumulate across iterations; call `self.opt.zero_grad()`"))]


def test_a_step_in_the_loop_names_its_optimizer() -> None:
    source = (
        "import torch\n"
        "opt_g = torch.optim.Adam(netG.parameters())\n"
        "for x in loader:\n"
        "    netG(x).mean().backward()\n"
        "    opt_g.step()\n"
    )
    assert _messages(source, "TL401") == [(5, (
        "this loop back-propagates and steps but never clears gradients: they accumulate across "
        "iterations; call `opt_g.zero_grad()`"))]


JOINED = """\
import itertools
import torch
def fit(netG, netD, batches):
    both = torch.optim.Adam(itertools.chain(netG.parameters(), netD.parameters()))
    for real in batches:
        netG.zero_grad()
{clear_d}        netD(netG(real)).mean().backward()
        both.step()
        netG.zero_grad()
        netG(real).mean().backward()
        both.step()
"""


def test_a_joined_optimizer_names_its_models_and_those_left_uncleared() -> None:
    """Between the two steps of one iteration `netD` keeps its gradients: no other
    iteration is involved. Never cleared before the first step either, it also keeps
    them from one iteration's second step to the next one's first."""
    assert _messages(JOINED.format(clear_d="        netD.zero_grad()\n"), "TL401") == [(12, (
        "`both` steps the parameters of `netG` and `netD`; `netD` is not cleared on every path "
        "between two of its steps: those gradients accumulate; call `both.zero_grad()`"))]
    assert _messages(JOINED.format(clear_d="        if real is None:\n            netD.zero_grad()\n"), "TL401") == [
        (10, ("`both` steps the parameters of `netG` and `netD`; `netD` is not cleared on every path "
              "between two of its steps: those gradients accumulate across iterations; call `both.zero_grad()`")),
        (13, ("`both` steps the parameters of `netG` and `netD`; `netD` is not cleared on every path "
              "between two of its steps: those gradients accumulate; call `both.zero_grad()`"))]


def test_a_step_in_a_loop_of_its_own_is_told_of_that_loop() -> None:
    """`train()` (defined first) loops over epochs and calls `train_epoch()`, whose own
    batch loop steps: the finding speaks of the batch loop, where the clear belongs,
    not of the epoch loop in `train()`."""
    source = (
        "import torch\n"
        "def train(model, loader, epochs):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for epoch in range(epochs):\n"
        "        train_epoch(model, loader, optimizer)\n"
        "def train_epoch(model, loader, optimizer):\n"
        "    for x in loader:\n"
        "        model(x).sum().backward()\n"
        "        optimizer.step()\n"
    )
    assert _messages(source, "TL401") == [(9, (
        "this loop back-propagates and steps but never clears gradients: they accumulate across "
        "iterations; call `optimizer.zero_grad()`"))]


def test_the_clip_message_names_the_scaler_and_optimizer_as_written() -> None:
    source = (
        "import torch\n"
        "fp16_scaler = torch.amp.GradScaler('cuda')\n"
        "for x in loader:\n"
        "    opt.zero_grad()\n"
        "    fp16_scaler.scale(model(x).sum()).backward()\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "    fp16_scaler.step(opt)\n"
        "    fp16_scaler.update()\n"
    )
    assert _messages(source, "TL101") == [(6, (
        "gradients are clipped while still multiplied by the loss scale: call `fp16_scaler.unscale_(opt)` "
        "before clipping"))]


def test_a_step_that_bypasses_the_scaler_names_the_scaler_and_optimizer_as_written() -> None:
    source = (
        "import torch\n"
        "amp_scaler = torch.amp.GradScaler('cuda')\n"
        "opt_g = torch.optim.Adam(netG.parameters())\n"
        "for x in loader:\n"
        "    opt_g.zero_grad()\n"
        "    amp_scaler.scale(netG(x).mean()).backward()\n"
        "    opt_g.step()\n"
        "    amp_scaler.update()\n"
    )
    assert _messages(source, "TL105") == [(7, (
        "`opt_g.step()` after `amp_scaler.scale(loss).backward()` applies the scaled gradients and does not "
        "skip inf/NaN steps; call `amp_scaler.step(opt_g)`"))]
    unscaled = source.replace("    opt_g.step()\n", "    amp_scaler.unscale_(opt_g)\n    opt_g.step()\n")
    assert _messages(unscaled, "TL105") == [(8, (
        "`opt_g.step()` after `amp_scaler.unscale_(opt_g)` with no inf/NaN check applies the steps whose "
        "gradients overflowed, which `amp_scaler.step(opt_g)` skips; call it instead"))]


def test_a_clipping_helper_is_told_the_scaler_and_optimizer_as_written() -> None:
    source = ("import torch\n"
              "scaler = torch.amp.GradScaler('cuda')\n"
              "def clip(m):\n"
              "    torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)\n"
              "for x in loader:\n"
              "    opt.zero_grad()\n"
              "    scaler.scale(model(x).mean()).backward()\n"
              "    clip(model)\n"
              "    scaler.step(opt)\n"
              "    scaler.update()\n")
    assert _messages(source, "TL101") == [(8, "`clip()` clips gradients that are still multiplied by the loss "
                                              "scale: call `scaler.unscale_(opt)` before it")]


def test_another_accelerators_cache_is_named_as_called() -> None:
    """llama-recipes' shape: accelerate's `is_xpu_available()` picks the cache; each
    call is flagged, and the XPU one is not called CUDA's."""
    source = (
        "import torch\n"
        "from accelerate.utils import is_xpu_available\n"
        "for x in loader:\n"
        "    model(x).mean().backward()\n"
        "    opt.step()\n"
        "    if is_xpu_available():\n"
        "        torch.xpu.empty_cache()\n"
        "    else:\n"
        "        torch.cuda.empty_cache()\n"
    )
    expected = [
        (7, "`torch.xpu.empty_cache()` runs on every iteration: it defeats the caching allocator and slows training"),
        (9, "`torch.cuda.empty_cache()` runs on every iteration: it defeats the caching allocator and slows training")]
    assert _messages(source, "TL201") == expected
    # transformers' query imported from the package itself
    top_level = source.replace("from accelerate.utils import is_xpu_available", "from transformers import is_torch_xpu_available")
    assert _messages(top_level.replace("if is_xpu_available()", "if is_torch_xpu_available()"), "TL201") == expected


def test_statistics_kept_whole_name_the_step_that_returns_the_loss_in_them() -> None:
    """torchtune's PPO shape: the step's named tuple holds the loss it back-propagated, and
    the epoch keeps field-wise sums of the kept tuples. One finding, at the list that keeps
    them, tells to detach the loss where the step returns it, which mends the sums too."""
    source = (
        "from typing import NamedTuple\n"
        "import torch\n"
        "class Stats(NamedTuple):\n"
        "    loss: torch.Tensor\n"
        "    kl: torch.Tensor\n"
        "class Recipe:\n"
        "    def ppo_step(self, batch):\n"
        "        loss, kl = self.loss_fn(self.policy(batch), batch)\n"
        "        loss.backward()\n"
        "        return Stats(loss, kl.detach())\n"
        "    def train(self, batches, epochs):\n"
        "        epoch_stats = []\n"
        "        for _ in range(epochs):\n"
        "            for batch in batches:\n"
        "                batch_stats = []\n"
        "                for mb in batch.split(2):\n"
        "                    batch_stats.append(self.ppo_step(mb))\n"
        "                epoch_stats.append(Stats(*map(sum, zip(*batch_stats))))\n"
        "                self.optimizer.step()\n"
        "        self.log(epoch_stats)\n"
    )
    assert _messages(source, "TL202") == [(17, (
        "`self.ppo_step()` returns the loss it back-propagated in its `loss` field, with its autograd graph: "
        "keeping what it returns across iterations keeps every graph, and so does anything built from what is "
        "kept (a field-wise `sum` or `torch.stack` of the statistics); put `loss.detach()` (or `loss.item()`) "
        "in what it returns"))]


def test_an_override_a_base_class_loop_runs_names_that_loop() -> None:
    source = (
        "import torch.nn.functional as F\n"
        "class Trainer:\n"
        "    def on_step_end(self, loss):\n"
        "        pass\n"
        "    def fit(self, loader):\n"
        "        for x, y in loader:\n"
        "            loss = F.cross_entropy(self.model(x), y)\n"
        "            loss.backward()\n"
        "            self.optimizer.step()\n"
        "            self.on_step_end(loss)\n"
        "class HistoryTrainer(Trainer):\n"
        "    def on_step_end(self, loss):\n"
        "        self.history.append(loss)\n"
    )
    assert _messages(source, "TL202") == [(13, (
        "a loss tensor is accumulated with its autograd graph across the iterations of the loop of "
        "`Trainer.fit()`, which calls `on_step_end()`, handing it the loss it back-propagates: use "
        "`loss.item()` (or `loss.detach()`)"))]


HOOKED = """\
import torch
def train(model, opt, loader):
    scaler = torch.amp.GradScaler('cuda')
    {registration}
    for x in loader:
        scaler.scale(model(x).mean()).backward()
        scaler.step(opt)
"""


def test_a_scaler_updated_in_a_step_hook_says_a_skipped_step_skips_the_hook() -> None:
    for hook in ("post", "pre"):
        source = HOOKED.format(registration=f"opt.register_step_{hook}_hook(lambda *_: scaler.update())")
        [(line, message)] = _messages(source, "TL104")
        assert line == 7 and "does not run the hook" in message


def test_a_step_hook_that_is_not_there_while_the_loop_runs_gets_the_plain_message() -> None:
    removed = HOOKED.format(registration="handle = opt.register_step_post_hook(lambda *_: scaler.update())\n"
                            "    handle.remove()")
    after = ("import torch\nscaler = torch.amp.GradScaler('cuda')\nfor x in loader:\n"
             "    scaler.scale(model(x).sum()).backward()\n    scaler.step(opt)\n"
             "opt.register_step_post_hook(lambda *_: scaler.update())\n")
    for source in (removed, after):
        [(_, message)] = _messages(source, "TL104")
        assert message.startswith("`scaler.step()` in a loop that never calls `scaler.update()`")


def test_removing_a_same_named_handle_in_another_function_keeps_the_hook_message() -> None:
    source = HOOKED.format(registration="handle = opt.register_step_post_hook(lambda *_: scaler.update())")
    source += "def detach(handle):\n    handle.remove()\n"
    [(_, message)] = _messages(source, "TL104")
    assert "does not run the hook" in message


def test_a_step_hook_on_the_stepped_optimizer_under_another_name_gets_the_hook_message() -> None:
    for registration, stepped in (("alias = opt\n    alias.register_step_post_hook(lambda *_: scaler.update())", "opt"),
                                  ("o = opts['g']\n    o.register_step_post_hook(lambda *_: scaler.update())",
                                   "opts['g']")):
        source = HOOKED.format(registration=registration).replace("scaler.step(opt)", f"scaler.step({stepped})")
        [(_, message)] = _messages(source, "TL104")
        assert "does not run the hook" in message


def test_a_step_hook_on_another_item_of_the_container_gets_the_plain_message() -> None:
    source = HOOKED.format(registration="opts['d'].register_step_post_hook(lambda *_: scaler.update())")
    [(_, message)] = _messages(source.replace("scaler.step(opt)", "scaler.step(opts['g'])"), "TL104")
    assert message.startswith("`scaler.step()` in a loop that never calls `scaler.update()`")
