"""Scripts that do unusual things still behave as under plain python, and the
sanitizer stays bounded on long runs."""
from __future__ import annotations

import json

from sanitizer_harness import PRELAUNCH, ScriptRuns

PRELAUNCH += [("hostile_gan.py",), ("plain", "hostile_gan.py"), ("hostile_spawn.py",),
              ("hostile_compile.py",), ("long_run.py",)]


def test_two_models_own_hooks_anomaly_mode_and_chdir(script_runs: ScriptRuns) -> None:
    run = script_runs.get("hostile_gan.py")
    plain = script_runs.plain("hostile_gan.py")
    assert run.returncode == 0 == plain.returncode, run.stderr
    assert [l for l in run.stdout.splitlines() if not l.startswith("sanitizer")] == plain.stdout.splitlines()
    assert "cwd-changed True hooks-fired 6 anomaly False" in run.stdout  # anomaly mode restored after its block
    assert run.report is not None and run.report["steps"] == 12  # both optimizers' steps
    assert not [e for e in run.report["events"] if e["severity"] == "error"]


def test_torch_multiprocessing_spawn(script_runs: ScriptRuns) -> None:
    run = script_runs.get("hostile_spawn.py")
    assert run.returncode == 0, run.stderr
    assert "children [0, 1]" in run.stdout
    assert run.report is not None and run.report["exit_code"] == 0


def test_torch_compile(script_runs: ScriptRuns) -> None:
    run = script_runs.get("hostile_compile.py")
    assert run.returncode == 0, run.stderr
    assert "compiled ok" in run.stdout or "compile unavailable" in run.stdout
    assert run.report is not None
    assert not [e for e in run.report["events"] if e["kind"] == "sanitizer_error"]


def test_twenty_thousand_steps_stay_bounded(script_runs: ScriptRuns) -> None:
    run = script_runs.get("long_run.py")
    assert run.returncode == 0, run.stderr
    report = run.report
    assert report is not None and report["steps"] == 20_000
    early, late = (int(v) for v in run.stdout.split("rss_kb ")[1].split()[:2])
    assert late - early < 64 * 1024, f"memory grew by {(late - early) // 1024} MB over 18,000 steps"
    assert len(json.dumps(report)) < 2_000_000
    assert all(len(values) <= 5_000 for values in report["series"].values())
