"""Fixtures shared by the linter's command-line tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from cli_runner import CLIP_BUG, DP_BUG

HERE = Path(__file__).resolve().parent


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "train.py").write_text(DP_BUG)
    (tmp_path / "src" / "clip.py").write_text(CLIP_BUG)
    (tmp_path / "src" / "clean.py").write_text("import torch\nx = torch.zeros(3)\n")
    return tmp_path


def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """After the last of the linter's tests, free what `lint_inputs` kept for them: the
    trees of every input are half a million objects, and the sanitizer's tests that
    follow in the same session scan the live objects and collect garbage at every
    run, paying for each of them. A later test that needs them parses them again."""
    if nextitem is not None and Path(nextitem.path).resolve().is_relative_to(HERE):
        return
    lint_inputs = sys.modules.get("lint_inputs")
    if lint_inputs is not None:
        lint_inputs.parsed.cache_clear()
        lint_inputs.findings_of_every_rule.cache_clear()
