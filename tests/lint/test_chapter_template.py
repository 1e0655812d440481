"""The chapter's complete training template (section 2.2), written correctly
in its bf16 and its fp16 path, gets no finding from any rule, preview rules
included: every rule must stay silent on the code the chapter teaches."""

from __future__ import annotations

from pathlib import Path

import pytest

from trainlint.engine import lint_bytes
from trainlint.registry import all_rules

FIXTURES = Path(__file__).parent / "fixtures"
TEMPLATES = ("chapter_template_bf16.py", "chapter_template_fp16.py", "chapter_template_seeded.py")


@pytest.mark.parametrize("name", TEMPLATES)
def test_template_has_no_finding(name: str) -> None:
    data = (FIXTURES / name).read_bytes()
    findings = lint_bytes(name, data, all_rules()).findings
    assert [f"{f.line}: {f.code} {f.message}" for f in findings] == []


@pytest.mark.parametrize("name", TEMPLATES)
def test_template_is_a_training_template(name: str) -> None:
    """Guard against the fixtures losing the code the rules look at."""
    source = (FIXTURES / name).read_text(encoding="utf-8")
    for needle in ("def train_one_epoch(", "@torch.no_grad()", "def validate(", "model.train()",
                   "model.eval()", "optimizer.zero_grad()", "clip_grad_norm_", "scheduler.step()",
                   "CosineAnnealingLR", "AdamW"):
        assert needle in source, needle
