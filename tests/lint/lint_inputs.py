"""Every source the linter's tests have: each rule's bad and good examples,
each fixture, each file in examples/."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import libcst as cst
import pytest

from trainlint.registry import all_rules

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
