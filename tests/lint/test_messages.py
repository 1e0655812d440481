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
