"""The training-loop rules (TL401-TL407) over realistic fixtures: each
fixture is named after its rule and marks every expected finding inline; the
rule runs alone and must find exactly those."""

from __future__ import annotations

from pathlib import Path

import pytest

from lint.registry import by_name_or_code
from lint.rule import expected_marks
from lint.testing import found_marks

FIXTURES = Path(__file__).parent / "fixtures"
LOOP_RULES = (
    "missing_zero_grad",
    "zero_grad_before_step",
    "clip_after_step",
    "scheduler_before_optimizer",
    "missing_train_mode",
    "eval_without_no_grad",
    "backward_in_no_grad",
)


def _present() -> list[str]:
    return [stem for stem in LOOP_RULES if (FIXTURES / f"{stem}.py").exists()]


@pytest.mark.parametrize("stem", _present())
def test_fixture(stem: str) -> None:
    rule = by_name_or_code(stem.replace("_", "-"))
    assert rule is not None, f"no rule named {stem.replace('_', '-')}"
    source = (FIXTURES / f"{stem}.py").read_text(encoding="utf-8")
    expected = expected_marks(source)
    assert expected, "a fixture must mark at least one finding"
    assert found_marks(rule, source) == expected


def test_every_loop_rule_has_a_fixture() -> None:
    registered = [stem for stem in LOOP_RULES if by_name_or_code(stem.replace("_", "-")) is not None]
    assert registered, "no training-loop rule is registered"
    assert _present() == registered
