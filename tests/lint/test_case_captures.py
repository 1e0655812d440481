"""A `case` pattern binds its names in the scope of the `match`, as an assignment
does: a capture of the whole subject holds the subject; one of a part is bound to
something the file does not show."""

from __future__ import annotations

import libcst as cst

from trainlint.analysis.receivers import OPTIMIZER
from trainlint.context import FileContext

SOURCE = '''\
import torch
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
def train(other, optimizers):
    match other:
        case optimizer:
            optimizer.zero_grad()
    match optimizers:
        case [first, *rest]:
            first.step()
    sgd = torch.optim.SGD(head.parameters(), lr=0.1)
    match sgd:
        case torch.optim.SGD() as held:
            held.step()
'''


def _read(ctx: FileContext, name: str) -> cst.Name:
    """The last `name` of the file: where it is read."""
    return [node for node in ctx.nodes_of(cst.Name) if node.value == name][-1]  # type: ignore[attr-defined, return-value]


def test_a_capture_binds_a_local_of_the_function() -> None:
    ctx = FileContext("input.py", SOURCE, cst.parse_module(SOURCE))
    function = next(iter(ctx.nodes_of(cst.FunctionDef)))
    for name in ("optimizer", "first", "rest", "held"):
        assert ctx.receivers.binding(_read(ctx, name)).owner is function, name  # type: ignore[union-attr]
    # not the module's optimizer: the parameter `other`, of no known kind
    assert ctx.receivers.kind(_read(ctx, "optimizer")) is None


def test_a_capture_of_the_subject_holds_it_and_one_of_a_part_anything() -> None:
    ctx = FileContext("input.py", SOURCE, cst.parse_module(SOURCE))
    receivers = ctx.receivers
    held = receivers.binding(_read(ctx, "held"))
    assert receivers.kind(_read(ctx, "held")) == OPTIMIZER
    assert [ctx.code(value) for value in receivers.only_assigned(held) or ()] == ["sgd"]  # type: ignore[arg-type]
    assert receivers.only_assigned(receivers.binding(_read(ctx, "first"))) is None  # type: ignore[arg-type]
