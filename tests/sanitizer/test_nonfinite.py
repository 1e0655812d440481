"""NaN/Inf localization: the step, the first non-finite module, the culprit, the parameter."""
from __future__ import annotations

from conftest import PRELAUNCH, ScriptRuns

PRELAUNCH += [("nonfinite_culprit.py",), ("nonfinite_culprit.py", "healthy")]


def test_overflowing_linear_is_named_as_the_culprit(script_runs: ScriptRuns) -> None:
    run = script_runs.get("nonfinite_culprit.py")
    assert run.returncode == 0, run.stderr
    activation = run.first("nonfinite_activation")
    assert activation["step"] == 8
    assert activation["culprit"] == "encoder.fc1"
    assert activation["module"] in ("encoder.fc1", "encoder.fc2", "encoder.norm")
    loss = run.first("nonfinite_loss")
    assert loss["step"] == 8 and loss["module"] == "encoder.fc1"
    assert loss["where"].endswith("nonfinite_culprit.py:41")
    grad = run.first("nonfinite_grad")
    assert grad["step"] == 8 and grad["param"] == "encoder.fc1.weight"
    assert "sanitizer: nonfinite_loss at step 8" in run.stderr


def test_healthy_twin_has_no_error(script_runs: ScriptRuns) -> None:
    run = script_runs.get("nonfinite_culprit.py", "healthy")
    assert run.returncode == 0, run.stderr
    assert run.errors() == []
    assert run.report["steps"] == 15
