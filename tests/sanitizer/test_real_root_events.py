"""Real-style training scripts whose report must name the root event, not a symptom
of it: a jump of the loss spread over a few steps (no steady climb), a jump of the
loss right before it went NaN (one problem), a GAN whose discriminator saturated
(a plateau of the loss, not parameters the forward skips), and a head the loss stopped
calling (a branch no longer reached, not a layer the forward runs)."""
from __future__ import annotations

import pytest

from sanitizer_harness import PRELAUNCH, ScriptRuns, line_of

SHIFTS = [("teacher_shift.py", "--seed", "1"), ("teacher_shift.py", "--seed", "2"),
          ("teacher_shift.py", "--seed", "1", "--over", "3"), ("teacher_shift.py", "--steady")]
PRELAUNCH += [*SHIFTS, ("jump_to_nan.py",), ("jump_to_nan.py", "--at", "10"), ("jump_to_nan.py", "--scale", "1"),
              ("gan_plateau.py", "--fault"), ("gan_plateau.py",)]
DTYPES = ["float64", "bfloat16"]
PRELAUNCH += [run for dtype in DTYPES for run in (("jump_to_nan.py", "--dtype", dtype),
                                                   ("gan_plateau.py", "--fault", "--dtype", dtype))]
PRELAUNCH += [("teacher_shift.py", "--seed", "1", "--dtype", dtype) for dtype in (*DTYPES, "float16")]
PRELAUNCH += [("aux_head_dropped.py",)]
PRELAUNCH += [("gated_head.py", "--switch", switch) for switch in ("40", "66")]


@pytest.mark.parametrize(("seed", "over"), [("1", "6"), ("2", "6"), ("1", "3")])
def test_a_jump_over_a_few_steps_is_named_a_jump_with_its_first_step(script_runs: ScriptRuns, seed: str,
                                                                     over: str) -> None:
    """The targets' weights move over 6 steps from step 300 (or 3): the loss rises 8 times
    over those steps and comes back slowly. The climb rule reports it; it said the loss
    "climbed steadily over the last 40 steps" (seed 1), as a rise over more than 3 losses
    was never read as one jump, or dated the jump at a noisy high loss within it, from step
    303 (seed 2). It names the jump and the step it began at now."""
    args = ("--seed", seed) if over == "6" else ("--seed", seed, "--over", over)
    run = script_runs.get("teacher_shift.py", *args)
    assert run.returncode == 0, run.stderr
    (event,) = run.events("divergence")
    assert event["rule"] == "climb" and event["jump_start"] == 300, event
    assert 300 < event["jump_step"] < 300 + int(over) and event["step"] <= 320, event
    assert event["message"].startswith(f"loss jumped at step {event['jump_step']} from 0.2"), event
    assert f"over steps 300-{event['jump_step']}" in event["message"] and "steadily" not in event["message"]
    assert event["where"] == f"teacher_shift.py:{line_of('teacher_shift.py', 'loss = nn.functional')}", event


def test_the_same_move_over_300_steps_climbs_steadily(script_runs: ScriptRuns) -> None:
    run = script_runs.get("teacher_shift.py", "--steady")
    assert run.returncode == 0, run.stderr
    (event,) = run.events("divergence")
    assert event["rule"] == "climb" and 300 < event["step"] < 600 and "jump_step" not in event, event
    assert event["message"].startswith("loss climbed steadily"), event


def test_a_jump_right_before_an_inf_loss_is_one_problem_led_up_to(script_runs: ScriptRuns) -> None:
    """A batch 1e10 times too large at step 80: that loss jumps, the update from it
    overflows the weights, the next loss is Inf. One problem: the non-finite loss, with
    the jump (a loss spike) shown as what led up to it, its step named; past the warm-up
    (step 10), the blow-up that ran into the Inf is the problem and names its step."""
    run = script_runs.get("jump_to_nan.py")
    assert run.returncode == 0, run.stderr
    (problem,) = run.report["summary"]["problems"]
    assert (problem["kind"], problem["step"]) == ("nonfinite_loss", 81), problem
    assert [line.split(":")[0] for line in problem["precursors"]] == ["loss_spike at step 80", "grad_spike at step 80"]
    (problem,) = script_runs.get("jump_to_nan.py", "--at", "10").report["summary"]["problems"]
    assert (problem["kind"], problem["step"]) == ("divergence", 10), problem
    assert "non-finite at step 11" in problem["headline"], problem
    assert script_runs.get("jump_to_nan.py", "--scale", "1").report["summary"]["problems"] == []


def test_a_discriminator_saturated_at_a_constant_loss_is_one_root(script_runs: ScriptRuns) -> None:
    """The discriminator's learning rate of 2 drives its sigmoid to exactly 0 within a few
    steps: its BCELoss sits at exactly 50, the generator's at 100, and every gradient is
    exactly zero. The generator's parameters were reported as having stopped learning
    ("a branch the loss no longer reaches") and its gradient norm as vanished, two
    problems, neither the cause. The saturated plateau is the one problem now, at its
    first step, with both folded under it, and the parameters, which every forward runs,
    are said to get zero gradients back, not to be skipped. The same GAN at 2e-4 trains: nothing."""
    run = script_runs.get("gan_plateau.py", "--fault")
    assert run.returncode == 0, run.stderr
    (problem,) = run.report["summary"]["problems"]
    event = run.first("divergence")
    assert (problem["kind"], problem["step"]) == ("divergence", event["step"]) and event["rule"] == "saturated"
    assert event["step"] <= run.first("unused_parameter")["since"], event
    assert "exactly 50" in event["message"] and "exactly 100" in event["message"], event
    assert event["where"] == f"gan_plateau.py:{line_of('gan_plateau.py', 'g_loss = bce')}", event
    assert sorted(line.split(" at ")[0] for line in problem["symptoms"]) == ["unused_parameter", "vanishing_grad"]
    # used in every forward: their gradients arrive, all zero; they are not said to be skipped
    stopped = run.first("unused_parameter")
    assert stopped["gradients"] == "zero" and stopped["called"], stopped
    assert "the forward still runs them" in stopped["message"] and "branch" not in stopped["message"], stopped
    assert script_runs.get("gan_plateau.py").events() == []


def test_a_head_the_loss_stopped_calling_is_a_branch_no_longer_reached(script_runs: ScriptRuns) -> None:
    """An auxiliary head called for the first 25 iterations only, its gradients kept as
    zeros by `zero_grad(set_to_none=False)`: it was said to be run by the forward with
    saturated outputs, as it had run at some step of the run. Its last call came before
    its gradients turned zero: a branch the loss no longer reaches (the GAN above, whose
    layers run on, is still told apart)."""
    run = script_runs.get("aux_head_dropped.py")
    assert run.returncode == 0, run.stderr
    (event,) = run.events("unused_parameter")
    assert event["since"] == 26 and event["params"] == ["norm_head.weight", "norm_head.bias"], event
    assert "a branch the loss no longer reaches" in event["message"] and not event.get("called"), event
    assert "the forward still runs them" not in event["message"], event


@pytest.mark.parametrize("switch", ["40", "66"])
def test_a_layer_still_run_is_told_whatever_step_its_gradients_turn_zero_at(script_runs: ScriptRuns,
                                                                            switch: str) -> None:
    """A head the forward runs on, its loss gated to zero from iteration 40 or 66, in a
    model gone by the end of the run. Its latest call was noted only at steps 1, 2, 4, 8,
    ...: zeros from step 67 on, after the last such look (64), read as a branch the loss no
    longer reaches. The owner is noted when the gradients turn zero too, now."""
    run = script_runs.get("gated_head.py", "--switch", switch)
    assert run.returncode == 0, run.stderr
    (event,) = run.events("unused_parameter")
    assert event["since"] == int(switch) + 1 and event["params"] == ["side_head.weight", "side_head.bias"], event
    assert "the forward still runs them" in event["message"] and event.get("called"), event


@pytest.mark.parametrize("dtype", [*DTYPES, "float16"])
def test_a_jump_over_a_few_steps_is_named_alike_in_every_dtype(script_runs: ScriptRuns, dtype: str) -> None:
    """The regression trained in float64, bfloat16 or float16 on the CPU: the same jump,
    named with the same steps."""
    shift = script_runs.get("teacher_shift.py", "--seed", "1", "--dtype", dtype)
    (event,) = shift.events("divergence")
    assert (event["step"], event["jump_start"], event["jump_step"]) == (312, 300, 304), event


@pytest.mark.parametrize("dtype", DTYPES)
def test_the_root_events_are_the_same_in_float64_and_bfloat16(script_runs: ScriptRuns, dtype: str) -> None:
    """A jump before an Inf stays one problem dated at the jump's step (in float64 the
    loss after the jump is still finite, and the blow-up runs into the Inf a step later:
    the divergence is that problem), and the saturated GAN is one divergence problem (in
    float64 the sigmoid saturates further out, later). In float16 both overflow first, a
    root of its own: the batch 1e10 times too large is Inf, Adam's update at a rate of 2
    overflows the weights."""
    (problem,) = script_runs.get("jump_to_nan.py", "--dtype", dtype).report["summary"]["problems"]
    expected = ("divergence", 80) if dtype == "float64" else ("nonfinite_loss", 81)
    assert (problem["kind"], problem["step"]) == expected and "step 80" in " ".join(problem["symptoms"]), problem
    gan = script_runs.get("gan_plateau.py", "--fault", "--dtype", dtype)
    (problem,) = gan.report["summary"]["problems"]
    assert problem["kind"] == "divergence" and gan.first("divergence")["rule"] == "saturated", problem
