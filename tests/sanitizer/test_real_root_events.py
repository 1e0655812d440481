"""Real-style training scripts whose report must name the root event, not a symptom
of it: a jump of the loss spread over a few steps (no steady climb), a jump of the
loss right before it went NaN (one problem), and a GAN whose discriminator saturated
(a plateau of the loss, not parameters the forward skips)."""
from __future__ import annotations

import pytest

from sanitizer_harness import PRELAUNCH, ScriptRuns, line_of

SHIFTS = [("teacher_shift.py", "--seed", "1"), ("teacher_shift.py", "--seed", "2"),
          ("teacher_shift.py", "--seed", "1", "--over", "3"), ("teacher_shift.py", "--steady")]
PRELAUNCH += SHIFTS


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
