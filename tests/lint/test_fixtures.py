"""Realistic fixture files: each runs with its rule alone (the file name is
the rule's name) and must give exactly the findings marked `# expect:`."""

from __future__ import annotations

from pathlib import Path

import pytest

from trainlint.registry import by_name_or_code
from trainlint.rule import expected_marks
from trainlint.testing import findings_of, found_marks

FIXTURES = Path(__file__).parent / "fixtures"
RULE_FIXTURES = sorted(p for p in FIXTURES.glob("*.py") if by_name_or_code(p.stem.replace("_", "-")))


@pytest.mark.parametrize("fixture", RULE_FIXTURES, ids=lambda p: p.stem)
def test_fixture_findings(fixture: Path) -> None:
    rule = by_name_or_code(fixture.stem.replace("_", "-"))
    assert rule is not None
    source = fixture.read_text(encoding="utf-8")
    expected = expected_marks(source)
    assert expected, "a fixture must mark at least one finding"
    assert {code for _, code in expected} == {rule.code}, "a fixture marks findings of its own rule only"
    assert found_marks(rule, source) == expected


@pytest.mark.parametrize("fixture", RULE_FIXTURES, ids=lambda p: p.stem)
def test_fixture_reports_each_line_once(fixture: Path) -> None:
    """One mistake, one finding: an import statement and the module path in
    it, or an alias and its later uses, are not reported twice."""
    rule = by_name_or_code(fixture.stem.replace("_", "-"))
    assert rule is not None
    lines = [f.line for f in findings_of(rule, fixture.read_text(encoding="utf-8"))]
    assert len(lines) == len(set(lines))
