"""Steps taken through a closure (LBFGS calls it several times a step): each event is
dated at the step whose own forward showed it."""
from __future__ import annotations

from sanitizer_harness import PRELAUNCH, ScriptRuns, line_of

PRELAUNCH += [("lbfgs_nan_batch.py", "--fault", "3"), ("lbfgs_nan_batch.py",)]


def test_weights_an_lbfgs_step_broke_are_seen_at_the_next_steps_forward(script_runs: ScriptRuns) -> None:
    """The NaN batch of step 3 makes its gradients NaN and LBFGS's update NaN weights; its
    later closure calls (the NaN batch again, on those weights) are that step's and must
    not stand before step 4's own forward, where `body.0` first outputs NaN (they made
    the first NaN activation step 5's)."""
    run = script_runs.get("lbfgs_nan_batch.py", "--fault", "3")
    assert run.returncode == 0, run.stderr
    assert run.first("nonfinite_input")["step"] == 3
    activation = run.first("nonfinite_activation")
    assert activation["step"] == 4 and activation["module"] == "body.0", activation
    assert activation["where"] == f"lbfgs_nan_batch.py:{line_of('lbfgs_nan_batch.py', 'loss = nn.functional')}"
    problems = run.report["summary"]["problems"]
    assert [p["kind"] for p in problems] == ["nonfinite_input"] and problems[0]["step"] == 3, problems
    healthy = script_runs.get("lbfgs_nan_batch.py")
    assert healthy.returncode == 0 and healthy.events() == [], healthy.events()
    assert run.stdout.splitlines()[:2] == healthy.stdout.splitlines()[:2] == [
        "step 1 loss 4.6387691", "step 2 loss 2.3702366"]
