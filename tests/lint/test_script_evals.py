"""TL405's script check (`left_in_eval_by_the_script`): models a module puts in eval mode
at its top level and trains in a later loop of its own code."""

from __future__ import annotations

import libcst as cst
import pytest

from trainlint.analysis.walk import iter_nodes
from trainlint.context import FileContext
from trainlint.rules import _missing_train_mode_built as built


def _script(models: int) -> str:
    """A script that builds `models` models in eval mode, then trains each in loops nested
    three deep, one after another."""
    lines = ["import torch", "import torch.nn as nn", "x = torch.zeros(1, 8)"]
    lines += [f"m{i} = nn.Linear(8, 8).eval()" for i in range(models)]
    for i in range(models):
        lines += [f"o{i} = torch.optim.SGD(m{i}.parameters(), lr=0.1)",
                  "for a in range(3):", "    for b in range(3):", "        for c in range(3):",
                  f"            m{i}(x).sum().backward()", f"            o{i}.step()"]
    return "\n".join(lines) + "\n"


def test_the_loops_of_a_script_are_read_once_for_all_its_evals(monkeypatch: pytest.MonkeyPatch) -> None:
    """Which loops train which model is read once per file, not again for every `.eval()`
    over every later statement and every loop nested in another."""
    models = 100
    source = _script(models)
    ctx = FileContext("input.py", source, cst.parse_module(source))
    read = 0
    is_backward = built.is_backward

    def counted(node: cst.CSTNode) -> bool:
        nonlocal read
        read += 1
        return is_backward(node)

    monkeypatch.setattr(built, "is_backward", counted)
    found = [model for _, model in built.left_in_eval_by_the_script(ctx)]
    assert found == [f"m{i}" for i in range(models)]
    assert read <= sum(1 for _ in iter_nodes(ctx.module))  # each node of a loop at most once
