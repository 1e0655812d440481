"""Fixtures shared by the linter's command-line tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_runner import CLIP_BUG, DP_BUG


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "train.py").write_text(DP_BUG)
    (tmp_path / "src" / "clip.py").write_text(CLIP_BUG)
    (tmp_path / "src" / "clean.py").write_text("import torch\nx = torch.zeros(3)\n")
    return tmp_path
