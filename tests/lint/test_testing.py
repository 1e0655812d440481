"""The helpers that run a rule on its examples fail loudly when a rule raises:
the engine reports a crash apart from the findings and drops the crashed
rule's findings, so a good example (no findings expected) or a bad example
left unfixed would otherwise pass."""

from __future__ import annotations

import libcst as cst
import pytest

import trainlint.registry
from trainlint.rule import Fix
from trainlint.testing import RuleCrashed, findings_of, fixed_source

TL202 = trainlint.registry.by_code()["TL202"]
CLEAN = TL202.good[0]
FLAGGED = next(example.code for example in TL202.bad_examples() if example.fixed is not None)


class _CrashInVisit(TL202):  # type: ignore[misc, valid-type]
    def visit_Call(self, node: cst.Call) -> None:
        raise ValueError("boom in visit")


class _Exploding(cst.Name):
    def _codegen_impl(self, state: object, default_semicolon: bool = False) -> None:  # type: ignore[override]
        raise ValueError("boom in fix")


class _CrashInFix(TL202):  # type: ignore[misc, valid-type]
    def report(self, node: cst.CSTNode, message: str | None = None, fix: Fix | None = None) -> None:
        if fix is not None:
            fix = Fix({edited: _Exploding("x") for edited in fix.edits}, fix.safety)
        super().report(node, message, fix)


def test_a_rule_crashing_on_a_clean_example_fails_with_the_crash() -> None:
    with pytest.raises(RuleCrashed, match="TL202 crashed on example.py: ValueError: boom in visit"):
        findings_of(_CrashInVisit, CLEAN)


def test_a_fix_crashing_fails_with_the_crash() -> None:
    with pytest.raises(RuleCrashed, match="TL202 crashed while fixing on example.py: ValueError: boom in fix"):
        fixed_source(_CrashInFix, FLAGGED)


def test_a_rule_that_does_not_crash_is_run_as_before() -> None:
    assert findings_of(TL202, CLEAN) == []
    assert findings_of(TL202, FLAGGED)
    assert fixed_source(TL202, FLAGGED) != FLAGGED
