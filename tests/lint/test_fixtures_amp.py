"""Each mixed-precision rule alone over its realistic fixture file: the exact
set of (line, code) findings must match the `# expect:` marks."""

from __future__ import annotations

from pathlib import Path

import pytest

from lint.registry import by_name_or_code
from lint.rule import expected_marks
from lint.testing import found_marks

FIXTURES = Path(__file__).parent / "fixtures"
AMP_FIXTURES = (
    "fp16_without_grad_scaler",
    "scaler_step_without_update",
    "step_bypasses_scaler",
    "grad_scaler_with_bf16",
    "half_precision_training",
    "unscale_every_micro_step",
)


@pytest.mark.parametrize("name", AMP_FIXTURES)
def test_fixture(name: str) -> None:
    rule = by_name_or_code(name.replace("_", "-"))
    assert rule is not None, f"no rule named {name.replace('_', '-')}"
    source = (FIXTURES / f"{name}.py").read_text(encoding="utf-8")
    expected = expected_marks(source)
    assert expected, "a fixture must mark at least one finding"
    assert found_marks(rule, source) == expected
