"""`bench/run.py sanitizer-cost` times the sanitizer's hooks inside a run; it must
keep finding them as the session changes (a hook it no longer wraps reads 0)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MEASURED = ("forward pre-hook", "forward hook", "of which the trail (both hooks)", "functional loss observer",
            "backward observer (before)", "optimizer pre-step hook", "of which the gradient read",
            "of which the detectors", "optimizer post-step hook")


def test_the_cost_benchmark_finds_every_hook() -> None:
    proc = subprocess.run([sys.executable, "bench/run.py", "sanitizer-cost", "--steps", "4", "--warmup", "2"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    figures = {match[1].strip(): float(match[2]) for match in re.finditer(r"^(.+?)\s+([\d.]+) us", proc.stdout, re.M)}
    assert [label for label in MEASURED if not figures.get(label)] == []
    assert "the sanitizer, all entry points" in figures
