"""Every source the linter's tests have: each rule's bad and good examples,
each fixture, each file in examples/."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import libcst as cst
import pytest

from trainlint.engine import lint_bytes
from trainlint.registry import all_rules
from trainlint.rule import Finding
from trainlint.testing import uncrashed

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"


def _inputs() -> list[object]:
    cases: list[object] = []
    for rule in all_rules():
        for index, example in enumerate(rule.bad_examples(), start=1):
            cases.append(pytest.param(example.code, id=f"{rule.code}-bad-{index}"))
        for index, good in enumerate(rule.good, start=1):
            cases.append(pytest.param(good, id=f"{rule.code}-good-{index}"))
    for path in sorted([*FIXTURES.glob("*.py"), *(ROOT / "examples").glob("*.py")]):
        cases.append(pytest.param(path.read_text(encoding="utf-8"), id=f"{path.parent.name}/{path.name}"))
    return cases


INPUTS = _inputs()


@cache
def parsed(source: str) -> cst.Module | None:
    """The module of `source`; None for the examples of TL000, which do not parse.
    Parsed once a session: several test modules check every input against its
    tree (LibCST's trees are immutable; all of them hold about 35 MB)."""
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError:
        return None


@cache
def findings_of_every_rule(source: str) -> tuple[Finding, ...]:
    """What a run of every rule finds in `source`, linted once a session: the
    tests that lint it other ways (each rule alone, the rules shuffled, the flow
    filters off) all compare with this one run. `RuleCrashed` when a rule raises:
    the engine drops a crashed rule's findings, which would hide what it missed."""
    return tuple(uncrashed(lint_bytes("input.py", source.encode("utf-8"), list(all_rules())), "input.py").findings)
