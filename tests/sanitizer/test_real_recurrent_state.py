"""A stateful GRU forecaster trained by truncated backpropagation through time. Left
without the `.detach()` of the hidden state it carries from window to window, it crashes
in step 2 on a graph step 1's backward() freed; given two backward() calls over one
encoder, it crashes in step 1. The report's advice says which of the two it is."""
from __future__ import annotations

from sanitizer_harness import PRELAUNCH, ScriptRuns

PRELAUNCH += [("stateful_forecaster.py",), ("stateful_forecaster.py", "--keep-graph"),
              ("plain", "stateful_forecaster.py", "--keep-graph"), ("stateful_forecaster.py", "--two-heads")]


def test_a_forecaster_that_detaches_its_carried_state_is_quiet(script_runs: ScriptRuns) -> None:
    run = script_runs.get("stateful_forecaster.py")
    assert run.returncode == 0, run.stderr
    assert run.events() == [], run.events()


def test_a_carried_state_left_attached_is_named_in_the_crash_advice(script_runs: ScriptRuns) -> None:
    run = script_runs.get("stateful_forecaster.py", "--keep-graph")
    plain = script_runs.plain("stateful_forecaster.py", "--keep-graph")
    assert (run.returncode, run.stdout) == (plain.returncode, plain.stdout) and run.returncode == 1
    assert run.report["ending"]["step"] == 2, run.report["ending"]
    (problem,) = run.report["summary"]["problems"]
    assert "graph a second time" in problem["headline"], problem
    assert "carried over from step to step" in problem["advice"] and "detach" in problem["advice"], problem


def test_two_backward_calls_in_one_step_are_told_apart_from_a_carried_state(script_runs: ScriptRuns) -> None:
    run = script_runs.get("stateful_forecaster.py", "--two-heads")
    (problem,) = run.report["summary"]["problems"]
    assert problem["advice"].startswith("two backward() calls in this step"), problem
    assert "retain_graph=True" in problem["advice"], problem
