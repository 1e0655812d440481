"""The diagnosis of real-style runs with more than one episode of a kind: a spike the loss
came back from long before a blow-up is a problem of its own, and a later spike of the
same kind is judged by what explains it, not by its kind's first event."""
from __future__ import annotations

from sanitizer_harness import PRELAUNCH, ScriptRuns

PRELAUNCH += [("demand_restarts.py", "--restart-lr", "50"), ("demand_restarts.py",),
              ("plain", "demand_restarts.py", "--restart-lr", "50")]


def _kinds_and_steps(problems: list[dict]) -> list[tuple[str, int]]:
    return [(problem["kind"], problem["step"]) for problem in problems]


def test_a_blow_up_after_a_spike_come_back_from_begins_with_its_own_spike(script_runs: ScriptRuns) -> None:
    """Sales logged in cents on four days of step 40's batch: a spike the loss is back from
    at step 47. The schedule's restart at step 120 sets the learning rate to 50: the loss
    blows up (a divergence from step 121, a spike at step 122, Inf at step 128). The
    divergence is the first problem, with its spike among what it explains; the spike of
    step 40 is a problem of its own after it, standing for itself alone."""
    run = script_runs.get("demand_restarts.py", "--restart-lr", "50")
    assert run.returncode == 0 and run.stdout.endswith("step 128: loss is inf, stopping\n"), run.stderr
    assert run.stdout == script_runs.plain("demand_restarts.py", "--restart-lr", "50").stdout
    problems = run.report["summary"]["problems"]
    assert _kinds_and_steps(problems) == [("divergence", 121), ("loss_spike", 40)], problems
    assert "loss_spike at step 122" in [line.split(":")[0] for line in problems[0]["symptoms"]], problems[0]
    assert "+1 more" not in problems[1]["headline"] and "recovered_step 47" in problems[1]["evidence"], problems[1]
    quiet = script_runs.get("demand_restarts.py")
    assert _kinds_and_steps(quiet.report["summary"]["problems"]) == [("loss_spike", 40)]
