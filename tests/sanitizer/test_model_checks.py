"""Parameters that are never trained: unused in forward, or outside every optimizer;
and the fitting verdicts of the decision table."""
from __future__ import annotations

from sanitizer_harness import PRELAUNCH, ScriptRuns

PRELAUNCH += [("unused_parameter.py",), ("param_not_in_optimizer.py",), ("fitting.py", "overfit"),
              ("fitting.py", "underfit")]


def test_branch_never_called_is_unused(script_runs: ScriptRuns) -> None:
    run = script_runs.get("unused_parameter.py")
    event = run.first("unused_parameter")
    assert event["module"] == "aux" and event["param"] == "aux.weight"
    assert event["params"] == ["aux.weight", "aux.bias"]
    assert "never called in forward" in event["message"]
    assert len(run.events("unused_parameter")) == 1


def test_head_added_after_the_optimizer(script_runs: ScriptRuns) -> None:
    run = script_runs.get("param_not_in_optimizer.py")
    event = run.first("param_not_in_optimizer")
    assert event["step"] == 1 and event["module"] == "head" and event["param"] == "head.weight"
    assert event["params"] == ["head.weight", "head.bias"]


def test_memorising_random_labels_is_overfitting(script_runs: ScriptRuns) -> None:
    run = script_runs.get("fitting.py", "overfit")
    event = run.first("overfitting")
    assert event["val_end"] > 2 * event["train_end"]
    assert run.events("underfitting") == []


def test_frozen_loss_is_underfitting(script_runs: ScriptRuns) -> None:
    run = script_runs.get("fitting.py", "underfit")
    assert run.first("underfitting")["severity"] == "warning"
    assert run.events("overfitting") == []
