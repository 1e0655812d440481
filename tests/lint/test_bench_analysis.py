"""`bench/run.py analysis` times the linter's own code over pre-parsed trees;
it must keep working as the engine changes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_analysis_benchmark_runs_on_the_examples() -> None:
    proc = subprocess.run(
        [sys.executable, "bench/run.py", "analysis", "examples", "--reps", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    files = len(list((ROOT / "examples").glob("*.py")))
    assert proc.stdout.startswith(f"{files} files, ") and " s CPU (best of 1: " in proc.stdout
