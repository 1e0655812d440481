"""The grad mode a function's body runs under, read from its call sites in the file."""

from __future__ import annotations

import libcst as cst
import pytest

from trainlint.analysis.loops import function_grad_mode
from trainlint.context import FileContext

CALLERS = '''\
import torch

def run_epoch(model, loader):
    pass

def walk(tree):
    for child in tree.children:
        walk(child)

def main(model, train_loader, val_loader, tree):
{calls}
'''


@pytest.mark.parametrize(("calls", "function", "mode"), [
    # every call under no_grad: nothing the body computes has a graph
    ("    with torch.no_grad():\n        run_epoch(model, val_loader)\n"
     "    with torch.inference_mode():\n        run_epoch(model, train_loader)\n", "run_epoch", "off"),
    # one trains, one evaluates: what the body records depends on the call
    ("    run_epoch(model, train_loader)\n"
     "    with torch.no_grad():\n        run_epoch(model, val_loader)\n", "run_epoch", "unknown"),
    ("    run_epoch(model, train_loader)\n", "run_epoch", None),
    # a recursive call runs in the mode of the call that entered it
    ("    with torch.no_grad():\n        walk(tree)\n", "walk", "off"),
    ("    walk(tree)\n", "walk", None),
], ids=["all-off", "some-off", "none-off", "recursive-off", "recursive-on"])
def test_function_grad_mode_is_off_only_when_every_call_is(calls: str, function: str, mode: str | None) -> None:
    source = CALLERS.format(calls=calls)
    ctx = FileContext("input.py", source, cst.parse_module(source))
    func = next(f for f in ctx.nodes_of(cst.FunctionDef) if f.name.value == function)  # type: ignore[attr-defined]
    assert function_grad_mode(ctx, func) == mode
