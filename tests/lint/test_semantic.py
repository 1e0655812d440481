"""The semantic model is complete before any rule runs: a name resolved in a
`visit_` handler resolves as it does once the whole file has been seen."""

from __future__ import annotations

from typing import ClassVar

import libcst as cst
import pytest

from trainlint.engine import lint_bytes
from trainlint.registry import all_rules
from trainlint.rule import Rule
from trainlint.analysis.walk import calls_in_order, iter_nodes, own_nodes
from trainlint.semantic import SemanticModel

from lint_inputs import INPUTS, parsed

SOURCE = '''\
import torch
from torch.nn.parallel import DistributedDataParallel


def wrap(model):
    from torch.nn import DataParallel
    return DataParallel(model)


def shadowed(nn, model):
    return nn.DataParallel(model)


class Trainer:
    def fit(self):
        self.step()

    def step(self):
        torch.cuda.empty_cache()
'''


class _Probe(Rule):
    """Records what the model says about every call, during the visit and
    again in `finish()`."""

    code = "TL999"
    name = "probe"
    severity = "warning"
    message = "probe"
    seen: ClassVar[list[tuple[str, object, object, object]]] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.seen.append(("visit", *self._answers(node)))

    def finish(self) -> None:
        for node in self.ctx.nodes_of(cst.Call):
            assert isinstance(node, cst.Call)
            self.seen.append(("finish", *self._answers(node)))

    def _answers(self, node: cst.Call) -> tuple[object, object, object]:
        return self.ctx.call_name(node), self.ctx.scope_of(node.func).node, self.ctx.local_callee(node)


def test_answers_in_visit_equal_answers_in_finish() -> None:
    _Probe.seen.clear()
    lint_bytes("probe.py", SOURCE.encode(), [*all_rules(), _Probe])
    during = [answers for when, *answers in _Probe.seen if when == "visit"]
    after = [answers for when, *answers in _Probe.seen if when == "finish"]
    assert during == after
    names = [name for name, _, _ in during]
    assert names.count("torch.nn.DataParallel") == 1  # the local import, not the parameter `nn`


def test_function_local_import_and_shadowing_parameter_with_every_rule() -> None:
    findings = lint_bytes("wrap.py", SOURCE.encode(), list(all_rules())).findings
    assert {(f.line, f.code) for f in findings if f.code == "TL301"} == {(7, "TL301")}


def test_scopes_and_call_graph() -> None:
    module = cst.parse_module(SOURCE)
    model = SemanticModel("m.py", SOURCE, module)
    calls = [n for n in model.nodes() if isinstance(n, cst.Call)]
    by_text = {model.code(call): call for call in calls}
    local = by_text["DataParallel(model)"]
    assert isinstance(model.scope_of(local).node, cst.FunctionDef)
    assert model.call_name(local) == "torch.nn.DataParallel"
    assert model.call_name(by_text["nn.DataParallel(model)"]) is None
    step = model.local_callee(by_text["self.step()"])
    assert step is not None and step.name.value == "step"
    assert model.call_sites(step) == [by_text["self.step()"]]
    assert model.nodes()[0] is module and all(model.parent(n) is not None for n in model.nodes()[1:])



@pytest.mark.parametrize("source", INPUTS)
def test_recorded_views_equal_walks(source: str) -> None:
    """What the model records in its one walk is what walking again gives."""
    module = parsed(source)
    if module is None:
        return
    model = SemanticModel("input.py", source, module)
    bodies = [module, *(n.body for n in model.nodes_of(cst.FunctionDef))]  # type: ignore[attr-defined]
    for body in bodies:
        assert list(model.own_nodes(body)) == list(own_nodes(body))
        assert list(model.calls_in_order(body)) == calls_in_order(body)
    for node in model.nodes():
        assert list(model.subtree(node)) == list(iter_nodes(node))
