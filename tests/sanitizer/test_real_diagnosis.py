"""The diagnosis of real-style runs with more than one episode of a kind: a spike the loss
came back from long before a scale collapse or a blow-up is a problem of its own, and a
later spike of the same kind is judged by what explains it, not by its kind's first event."""
from __future__ import annotations

from sanitizer_harness import PRELAUNCH, ScriptRuns

PRELAUNCH += [("fp16_price_shards.py", "--dollars-from", "70"), ("fp16_price_shards.py", "--dollars-from", "41"),
              ("fp16_price_shards.py",), ("plain", "fp16_price_shards.py", "--dollars-from", "70"),
              ("demand_restarts.py", "--restart-lr", "50"), ("demand_restarts.py",),
              ("plain", "demand_restarts.py", "--restart-lr", "50")]


def _kinds_and_steps(problems: list[dict]) -> list[tuple[str, int]]:
    return [(problem["kind"], problem["step"]) for problem in problems]


def test_a_scale_collapse_leaves_out_a_spike_come_back_from_before_its_skipping_began(script_runs: ScriptRuns) -> None:
    """Prices of four listings 30 times too large at step 40: the loss spikes and is back at
    step 41. From step 70 the shards hold dollars, not millions: every step from there
    overflows fp16 and the scale collapses (reported at step 80). The collapse is the first
    problem; the spike, 40 steps before it but come back from 29 steps before the skipping
    began, is a problem of its own, after it. The later spike of the same kind, at step 90
    under the collapsed scale, is the collapse's, not another repeat of the first one."""
    run = script_runs.get("fp16_price_shards.py", "--dollars-from", "70")
    assert run.returncode == 0, run.stderr
    assert run.stdout == script_runs.plain("fp16_price_shards.py", "--dollars-from", "70").stdout  # numbers unchanged
    collapse = run.first("scale_collapse")
    assert (collapse["step"], collapse["skipping_since"]) == (80, 70), collapse
    assert run.first("loss_spike")["recovered_step"] == 41, run.first("loss_spike")
    problems = run.report["summary"]["problems"]
    assert _kinds_and_steps(problems) == [("scale_collapse", 80), ("nonfinite_activation", 91), ("loss_spike", 40)]
    assert problems[0]["precursors"] == [], problems[0]
    assert [line.split(":")[0] for line in problems[0]["symptoms"]] == ["loss_spike at step 90", "grad_spike at step 90"]
    assert "+1 more" not in problems[2]["headline"], problems[2]


def test_a_spike_still_unrecovered_when_the_skipping_began_led_up_to_the_collapse(script_runs: ScriptRuns) -> None:
    """The shards hold dollars from step 41, the step after the spike: the loss never came
    back from it before the skipping began, and the spike led up to the collapse."""
    run = script_runs.get("fp16_price_shards.py", "--dollars-from", "41")
    assert run.returncode == 0, run.stderr
    problems = run.report["summary"]["problems"]
    assert _kinds_and_steps(problems) == [("scale_collapse", 51), ("nonfinite_activation", 61)], problems
    assert [line.split(":")[0] for line in problems[0]["precursors"]] == ["loss_spike at step 40"], problems[0]


def test_a_spike_without_a_collapse_after_it_is_reported_alone(script_runs: ScriptRuns) -> None:
    run = script_runs.get("fp16_price_shards.py")
    assert run.returncode == 0, run.stderr
    problems = run.report["summary"]["problems"]
    assert _kinds_and_steps(problems) == [("loss_spike", 40)], problems
    assert "recovered_step 41" in problems[0]["evidence"], problems[0]


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
