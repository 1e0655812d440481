"""TL405's script check (`left_in_eval_by_the_script`): models a module puts in eval mode
at its top level (or a function, in its own body) and trains in a later loop of its own
code."""

from __future__ import annotations

import libcst as cst
import pytest

from trainlint.analysis.walk import iter_nodes
from trainlint.context import FileContext
from trainlint.rules import _missing_train_mode_built as built
from trainlint.rules.missing_train_mode import MissingTrainMode
from trainlint.testing import findings_of


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


def _count_backward_tests(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A one-item list counting the nodes the script check asks `is_backward` about."""
    read = [0]
    is_backward = built.is_backward

    def counted(node: cst.CSTNode) -> bool:
        read[0] += 1
        return is_backward(node)

    monkeypatch.setattr(built, "is_backward", counted)
    return read


def test_the_loops_of_a_script_are_read_once_for_all_its_evals(monkeypatch: pytest.MonkeyPatch) -> None:
    """Which loops train which model is read once per file, not again for every `.eval()`
    over every later statement and every loop nested in another."""
    models = 100
    source = _script(models)
    ctx = FileContext("input.py", source, cst.parse_module(source))
    read = _count_backward_tests(monkeypatch)
    found = [model for _, model, _ in built.left_in_eval_by_the_script(ctx)]
    assert found == [f"m{i}" for i in range(models)]
    assert read[0] <= sum(1 for _ in iter_nodes(ctx.module))  # each node of a loop at most once


def _functions(count: int) -> str:
    """A module of `count` functions, each building a model in eval mode and training it
    in loops nested three deep."""
    lines = ["import torch", "import torch.nn as nn"]
    for i in range(count):
        lines += [f"def fit{i}(x):", "    model = nn.Linear(8, 8).eval()",
                  "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)",
                  "    for a in range(3):", "        for b in range(3):", "            for c in range(3):",
                  "                model(x).sum().backward()", "                optimizer.step()"]
    return "\n".join(lines) + "\n"


def test_the_loops_of_each_function_are_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A function read as a script of its own reads its own loops once, not those of the
    other functions, and not once per function of the file."""
    count = 100
    source = _functions(count)
    ctx = FileContext("input.py", source, cst.parse_module(source))
    read = _count_backward_tests(monkeypatch)
    found = [(model, function) for _, model, function in built.left_in_eval_by_the_script(ctx)]
    assert found == [("model", f"fit{i}") for i in range(count)]
    assert read[0] <= sum(1 for _ in iter_nodes(ctx.module))


def test_an_eval_before_a_function_s_epochs_and_one_for_validation_are_each_reported_once() -> None:
    """The `.eval()` before the loop (read as the function's script) and the one for
    validation in the epoch loop (read by the walk of the epochs): one finding each."""
    source = (
        "import torch\n"
        "import torch.nn as nn\n"
        "def main():\n"
        "    model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1))\n"
        "    model.eval()\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for epoch in range(10):\n"
        "        for x, y in loader:\n"
        "            optimizer.zero_grad()\n"
        "            nn.functional.mse_loss(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "        model.eval()\n"
        "        with torch.no_grad():\n"
        "            for x, y in val_loader:\n"
        "                model(x)\n"
    )
    lines = [finding.line for finding in findings_of(MissingTrainMode, source)]
    assert lines == [5, 12]


def test_each_function_s_model_is_looked_for_in_that_function_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whether a function's model is only run forward, read or moved is asked of the
    names in that function, once per variable: a file of many functions all naming
    their model `model` does not read every function's `model` for each `.eval()`."""
    count = 100
    source = _functions(count)
    ctx = FileContext("input.py", source, cst.parse_module(source))
    read = 0
    binding = ctx.receivers.binding

    def counted(node: cst.BaseExpression) -> object:
        nonlocal read
        read += type(node) is cst.Name and node.value == "model"
        return binding(node)

    monkeypatch.setattr(ctx.receivers, "binding", counted)
    found = [function for _, _, function in built.left_in_eval_by_the_script(ctx)]
    assert found == [f"fit{i}" for i in range(count)]
    assert read <= 4 * len(ctx.receivers.spelled("model"))


def test_each_freeze_is_resolved_once_for_all_evals(monkeypatch: pytest.MonkeyPatch) -> None:
    """Which variable each freeze (`y0.requires_grad_(False)`) is of is asked once per
    file, not again for every `.eval()`: a script of many models and many frozen tensors
    does not compare every pair."""
    models = 100
    source = _script(models) + "".join(f"y{i} = torch.zeros(3)\ny{i}.requires_grad_(False)\n" for i in range(models))
    ctx = FileContext("input.py", source, cst.parse_module(source))
    read = 0
    binding = ctx.receivers.binding

    def counted(node: cst.BaseExpression) -> object:
        nonlocal read
        read += type(node) is cst.Name and node.value.startswith("y")
        return binding(node)

    monkeypatch.setattr(ctx.receivers, "binding", counted)
    found = [model for _, model, _ in built.left_in_eval_by_the_script(ctx)]
    assert found == [f"m{i}" for i in range(models)]
    assert read == models  # each frozen name once
