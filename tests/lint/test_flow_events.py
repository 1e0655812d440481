"""A rule's flow skips every node its `events` filter rejects. The filter only
saves time: with it switched off, every rule finds exactly the same, on every
rule example, fixture and file in examples/."""

from __future__ import annotations

import pytest

from trainlint.analysis.flowgraph import EventFilter, FlowGraph, Program
from trainlint.engine import lint_bytes
from trainlint.registry import all_rules
from trainlint.rule import Finding

from lint_inputs import INPUTS, findings_of_every_rule


def _lint(source: str) -> list[Finding]:
    return lint_bytes("input.py", source.encode("utf-8"), list(all_rules())).findings


@pytest.mark.parametrize("source", INPUTS)
def test_event_filters_change_no_finding(source: str, monkeypatch: pytest.MonkeyPatch) -> None:
    filtered = list(findings_of_every_rule(source))
    program = FlowGraph.program

    def unfiltered(self: FlowGraph, keep: EventFilter | None, keep_loops: bool, through_calls: bool) -> Program:
        return program(self, None, keep_loops, through_calls)

    monkeypatch.setattr(FlowGraph, "program", unfiltered)
    assert _lint(source) == filtered
