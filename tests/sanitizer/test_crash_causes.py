"""A crash on values a problem had already broken names that problem as what it followed:
the crash comes first (the run did not finish), the problem stays the root."""
from __future__ import annotations

import pytest

from sanitizer_harness import PRELAUNCH, ScriptRuns, line_of

PRELAUNCH += [("diverge_crash.py", "check"), ("diverge_crash.py", "index"), ("diverge_crash.py", "healthy"),
              ("clipped_policy_rollouts.py",), ("clipped_policy_rollouts.py", "--nan-state", "8"),
              ("crash_after_training.py", "sample"), ("crash_after_training.py", "train"),
              ("crash_inside_loop.py", "evalmode"), ("crash_inside_loop.py", "frozen"),
              ("crash_inside_loop.py", "loader"), ("crash_inside_loop.py", "epoch"),
              ("tiny_batch_crash.py", "noise"), ("tiny_batch_crash.py", "diverged"), ("tiny_batch_crash.py", "large")]


@pytest.mark.parametrize(("mode", "crash", "error"), [
    ("check", 85, "RuntimeError: loss is inf at step 85"), ("index", 43, "IndexError: list index out of range")])
def test_a_crash_on_a_diverged_loss_follows_the_divergence(script_runs: ScriptRuns, mode: str, crash: int,
                                                           error: str) -> None:
    """The warm-up climbs to a rate too high: the loss is 50 times its early level at
    step 39 and climbs on. `check`: the loop's own guard raises at the Inf loss of step
    85; `index`: a histogram indexed by the loss's magnitude overruns at step 43, four
    high losses after the climb began, before the median of 10 could show it (then the
    high losses that ran into the crash are the blow-up). The crash names the divergence,
    dated where the climb began, as what it followed."""
    run = script_runs.get("diverge_crash.py", mode)
    assert run.returncode == 1 and error in run.stderr, run.stderr
    assert run.stdout == script_runs.plain("diverge_crash.py", mode).stdout  # the run's numbers, unchanged
    event = run.first("divergence")
    assert event["step"] == 39 and event["diverged_at_crash"] is True, event
    if mode == "index":
        assert "and the script crashed in step 43" in event["message"], event
    problems = run.report["summary"]["problems"]
    assert problems[0]["headline"].startswith(
        f"the script crashed in step {crash}, after the loss diverged at step 39 (problem 2): {error}"), problems[0]
    assert problems[1]["kind"] == "divergence" and problems[1]["step"] == 39, problems
    assert event["where"] == f"diverge_crash.py:{line_of('diverge_crash.py', 'loss = nn.functional.mse_loss')}"


def test_the_healthy_twin_of_the_diverging_run_finishes_clean(script_runs: ScriptRuns) -> None:
    run = script_runs.get("diverge_crash.py", "healthy")
    assert run.returncode == 0 and run.stdout.endswith("done 120\n"), run.stderr
    assert run.events() == [], run.events()


def test_a_crash_on_the_nan_a_nan_update_left_in_the_weights_follows_that_update(script_runs: ScriptRuns) -> None:
    """seungeunrho/minimalRL's PPO shape: the 8th update's batch holds a NaN state (its
    first epoch is step 22); the weights are NaN from that update on, and the next
    rollout's `Categorical` rejects its NaN probabilities after step 24, before any
    work of step 25, in the loop of updates around the epochs' steps: after step 24,
    not the run's last. The crash names the NaN batch as what it followed; the healthy
    run finds nothing."""
    healthy = script_runs.get("clipped_policy_rollouts.py")
    assert healthy.returncode == 0 and healthy.events() == [], healthy.stderr
    run = script_runs.get("clipped_policy_rollouts.py", "--nan-state", "8")
    assert run.returncode == 1 and "ValueError: Expected parameter probs" in run.stderr, run.stderr
    problems = run.report["summary"]["problems"]
    assert problems[0]["headline"].startswith(
        "the script crashed after step 24, with the weights non-finite since step 22 "
        "(problem 2): ValueError"), problems
    assert (problems[1]["kind"], problems[1]["step"]) == ("nonfinite_input", 22), problems
    assert run.first("nonfinite_param")["step"] == 22


def test_a_crash_on_the_third_step_of_tiny_batches_follows_no_divergence_from_two_losses(
        script_runs: ScriptRuns) -> None:
    """Batches of two, a crash saving the third step's checkpoint: a third loss 22 times
    the larger of the first two is what such batches give about once in 300 (seed 38), no
    divergence from a level of two losses, and the crash names none. At a learning rate
    2,000 times higher the loss is 22,000 times its first at step 2: a divergence, which
    the crash follows."""
    run = script_runs.get("tiny_batch_crash.py", "noise")
    assert run.returncode == 1 and "Parent directory runs/tiny_batch does not exist" in run.stderr, run.stderr
    assert run.stdout == script_runs.plain("tiny_batch_crash.py", "noise").stdout  # the run's numbers, unchanged
    losses = [float(line.split()[1]) for line in run.stdout.splitlines()]
    assert len(losses) == 3 and 10 * max(losses[:2]) < losses[2] < 43 * max(losses[:2]), losses
    assert run.events("divergence") == [], run.events()
    problems = run.report["summary"]["problems"]
    # the save after the third step's update, in its iteration: after step 3, not in a fourth
    assert problems[0]["headline"].startswith("the script crashed after step 3: RuntimeError: Parent directory"), \
        problems
    diverged = script_runs.get("tiny_batch_crash.py", "diverged")
    event = diverged.first("divergence")
    assert event["step"] == 2 and event["diverged_at_crash"] is True, event
    assert diverged.report["summary"]["problems"][0]["headline"].startswith(
        "the script crashed after step 3, after the loss diverged at step 2 (problem 2): RuntimeError"), \
        diverged.report


def test_a_crash_on_the_third_step_of_large_batches_follows_the_divergence_it_ended_on(
        script_runs: ScriptRuns) -> None:
    """Batches of 256 at a learning rate past what the regression allows: the loss grows
    about 4.5 times a step, 21 times its first at step 3, where the checkpoint's save
    crashes. The mean of 256 squared errors never jumps that far by noise (batches of two
    do, once in 18): the crash follows the divergence at step 3."""
    run = script_runs.get("tiny_batch_crash.py", "large")
    assert run.returncode == 1 and "Parent directory runs/tiny_batch does not exist" in run.stderr, run.stderr
    losses = [float(line.split()[1]) for line in run.stdout.splitlines()]
    assert len(losses) == 3 and 10 * losses[0] < losses[2] < 10 * losses[1], losses
    event = run.first("divergence")
    assert event["step"] == 3 and event["diverged_at_crash"] is True, event
    assert run.report["summary"]["problems"][0]["headline"].startswith(
        "the script crashed after step 3, after the loss diverged at step 3"), run.report["summary"]["problems"]


def test_a_crash_in_generation_after_the_loop_came_after_the_last_step(script_runs: ScriptRuns) -> None:
    """nanoGPT's `generate` without its crop to the block size: after 30 steps the model
    writes text under torch.no_grad, and the position embedding raises once the text is
    longer than the 16 positions it has. No step 31 began (no backward, no forward in
    training mode): the crash came after step 30, the last one."""
    run = script_runs.get("crash_after_training.py", "sample")
    assert run.returncode == 1 and "IndexError: index out of range in self" in run.stderr, run.stderr
    assert run.report["steps"] == 30
    assert (run.report["ending"]["step"], run.report["ending"]["after_step"]) == (30, True), run.report["ending"]
    (problem,) = run.report["summary"]["problems"]
    assert problem["headline"].startswith(
        "the script crashed after step 30, the last optimizer step: IndexError"), problem


def test_a_crash_in_the_forward_of_a_training_step_came_in_that_step(script_runs: ScriptRuns) -> None:
    """The same model, its step-31 batch holding an id past the vocabulary: the forward
    of step 31 raises. That step began: the crash came in it."""
    run = script_runs.get("crash_after_training.py", "train")
    assert run.returncode == 1 and "IndexError: index out of range in self" in run.stderr, run.stderr
    assert run.report["ending"]["step"] == 31 and "after_step" not in run.report["ending"], run.report["ending"]
    (problem,) = run.report["summary"]["problems"]
    assert problem["headline"].startswith("the script crashed: IndexError"), problem


@pytest.mark.parametrize(("mode", "error"), [
    ("evalmode", "RuntimeError: loss of step 6 failed"), ("frozen", "RuntimeError: encoder weights missing"),
    ("loader", "ValueError: unreadable record in batch 6")])
def test_a_crash_inside_the_training_loop_before_the_steps_backward_came_in_that_step(
        script_runs: ScriptRuns, mode: str, error: str) -> None:
    """Five steps, then the loop's sixth iteration raises before any backward or
    training-mode forward of its own: the model left in eval(), the frozen encoder's
    forward under no_grad, the batch failing to load. The crash is in the loop around the
    step's call: it came in step 6, not after the last step."""
    run = script_runs.get("crash_inside_loop.py", mode)
    assert run.returncode == 1 and error in run.stderr, run.stderr
    assert run.report["ending"]["step"] == 6 and "after_step" not in run.report["ending"], run.report["ending"]
    assert "after step" not in run.report["summary"]["problems"][0]["headline"]


def test_a_crash_at_an_epochs_end_came_after_its_last_step_not_the_runs(script_runs: ScriptRuns) -> None:
    """An evaluation at the end of the first epoch raises: outside the loop around the
    step's call, inside the epoch loop around it. It came after step 5, which need not be
    the run's last optimizer step."""
    run = script_runs.get("crash_inside_loop.py", "epoch")
    assert (run.report["ending"]["step"], run.report["ending"]["after_step"]) == (5, True), run.report["ending"]
    assert "last_step" not in run.report["ending"]
    headline = run.report["summary"]["problems"][0]["headline"]
    assert headline.startswith("the script crashed after step 5: RuntimeError"), headline
