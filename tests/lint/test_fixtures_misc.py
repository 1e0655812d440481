"""Each realistic fixture of this set runs with its one rule alone and must
produce exactly the findings marked `# expect:` in it."""

from __future__ import annotations

from pathlib import Path

import pytest

from lint.registry import by_name_or_code
from lint.rule import expected_marks
from lint.testing import found_marks

FIXTURES = Path(__file__).parent / "fixtures"
RULES = (
    "loss-accumulated-with-graph",
    "deprecated-distributed-launch",
    "sampler-with-shuffle",
    "fsdp1-api",
    "optimizer-before-shard",
    "benchmark-with-deterministic",
    "non-blocking-without-pin-memory",
    "incomplete-seeding",
    "single-process-loading",
)


@pytest.mark.parametrize("path", [FIXTURES / f"{name.replace('-', '_')}.py" for name in RULES], ids=lambda p: p.stem)
def test_fixture_findings(path: Path) -> None:
    rule = by_name_or_code(path.stem.replace("_", "-"))
    assert rule is not None, f"no rule named after {path.name}"
    source = path.read_text(encoding="utf-8")
    expected = expected_marks(source)
    assert expected, "a fixture must mark at least one finding"
    assert {code for _, code in expected} == {rule.code}
    assert found_marks(rule, source) == expected


@pytest.mark.parametrize("name", RULES)
def test_chapter_template_is_clean(name: str) -> None:
    rule = by_name_or_code(name)
    assert rule is not None
    source = (Path(__file__).parent / "data" / "chapter_template.py").read_text(encoding="utf-8")
    assert found_marks(rule, source) == set()
