"""Training written by hand. A loss cut off from the model (a term computed under `torch.no_grad()` or
detached) makes the first backward raise: the diagnosis says why, and where the
cut was when the sanitizer saw it; a run that ends before any forward pass is
not taken for a script without torch, nor said to have crashed in a step. A static
loss scale undone by hand is judged by the unscaled loss."""
from __future__ import annotations

from pathlib import Path

import pytest

from sanitizer_harness import PRELAUNCH, ScriptRuns, line_of, run_sanitizer

PRELAUNCH += [*[("static_loss_scale.py", "--dtype", dtype, *fault) for dtype in ("float32", "bfloat16")
                for fault in ((), ("--corrupt-step", "51"), ("--no-unscale",))],
              *[("plain", "static_loss_scale.py", "--dtype", dtype) for dtype in ("float32", "bfloat16")]]
PRELAUNCH += [("bandit_reinforce.py",), ("bandit_reinforce.py", "--no-grad"), ("bandit_reinforce.py", "--detach"),
              ("plain", "bandit_reinforce.py"), ("plain", "bandit_reinforce.py", "--no-grad"),
              ("bandit_reinforce.py", "--ratio"), ("plain", "bandit_reinforce.py", "--ratio"),
              ("bandit_reinforce.py", "--ratio-detach")]
BACKWARD = f"bandit_reinforce.py:{line_of('bandit_reinforce.py', 'loss.backward()')}"
# the log_prob taken under `no_grad` in the `--no-grad` run: the one after `elif CUT == "--no-grad":`
NO_GRAD_BRANCH = 'elif CUT == "--no-grad":'
NO_GRAD_LOG_PROB = f"bandit_reinforce.py:{line_of('bandit_reinforce.py', NO_GRAD_BRANCH) + 2}"
GRAD_FN = "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"


def test_healthy_reinforce_on_a_bandit(script_runs: ScriptRuns) -> None:
    run = script_runs.get("bandit_reinforce.py")
    plain = script_runs.plain("bandit_reinforce.py")
    assert (run.returncode, run.stdout) == (plain.returncode, plain.stdout) == (0, plain.stdout), run.stderr
    assert run.events() == [] and run.report["steps"] == 150
    assert any("policy-gradient objective" in note for note in run.report["summary"]["notes"])


def test_log_probabilities_taken_without_gradients_are_named(script_runs: ScriptRuns) -> None:
    run = script_runs.get("bandit_reinforce.py", "--no-grad")
    plain = script_runs.plain("bandit_reinforce.py", "--no-grad")
    assert (run.returncode, run.stdout) == (plain.returncode, plain.stdout) == (1, ""), run.stderr
    assert GRAD_FN in plain.stderr
    crash = run.report["summary"]["problems"][0]
    assert GRAD_FN in crash["headline"] and BACKWARD in crash["headline"]
    assert "torch.no_grad()" in crash["advice"] and "Distribution.log_prob" in crash["advice"]
    assert NO_GRAD_LOG_PROB in crash["advice"], crash
    assert "try: " in run.stderr and NO_GRAD_LOG_PROB in run.stderr
    assert ".detach() at" not in crash["advice"]  # the script's `.detach()` lines did not run
    # the log-probabilities never reached autograd: no policy-gradient note
    assert not any("policy-gradient" in note for note in run.report["summary"]["notes"])


def test_a_detached_loss_names_the_detach(script_runs: ScriptRuns) -> None:
    """The log-probabilities `.detach()`ed: the advice named every cause (no_grad first)
    and told to compute with gradients enabled; it names the `.detach()` that ran."""
    run = script_runs.get("bandit_reinforce.py", "--detach")
    assert run.returncode == 1
    crash = run.report["summary"]["problems"][0]
    assert GRAD_FN in crash["headline"] and BACKWARD in crash["headline"]
    line = line_of("bandit_reinforce.py", "log_probs = pick.log_prob(arms).detach()")
    assert f"computed from what the .detach() at bandit_reinforce.py:{line} cut off" in crash["advice"], crash
    assert "no_grad" not in crash["advice"] and "log_prob" not in crash["advice"], crash


def test_a_detached_ratio_beside_old_log_probabilities_blames_the_detach(script_runs: ScriptRuns) -> None:
    """The old policy's log-probabilities taken under `no_grad` (constants, rightly) and
    the new ones `.detach()`ed: the advice named the `no_grad` log_prob as the likely cut;
    it names the `.detach()`, and not `no_grad`. Without the detach: a healthy run."""
    run = script_runs.get("bandit_reinforce.py", "--ratio-detach")
    assert run.returncode == 1
    crash = run.report["summary"]["problems"][0]
    line = line_of("bandit_reinforce.py", "log_probs = log_probs.detach()")
    assert f"the .detach() at bandit_reinforce.py:{line}" in crash["advice"], crash
    assert "no_grad" not in crash["advice"] and "Distribution.log_prob" not in crash["advice"], crash
    healthy = script_runs.get("bandit_reinforce.py", "--ratio")
    plain = script_runs.plain("bandit_reinforce.py", "--ratio")
    assert (healthy.returncode, healthy.stdout) == (0, plain.stdout), healthy.stderr
    assert healthy.events() == [] and "advice" not in healthy.report["ending"]


def test_a_crash_before_the_first_forward_is_no_script_without_torch(tmp_path: Path) -> None:
    (tmp_path / "early.py").write_text(
        "import torch\n"
        "model = torch.nn.Linear(3, 1)\n"
        "raise ValueError('no GPU for SyncBatchNorm')\n")
    run = run_sanitizer(["early.py"], tmp_path / "r.json", cwd=tmp_path)
    assert run.returncode == 1
    notes = run.report["summary"]["notes"]
    assert not any("does it use torch" in note for note in notes), notes
    assert any("ended before" in note and "nothing was checked" in note for note in notes), notes
    assert "step" not in run.report["ending"]  # it crashed while setting up, in no step (merge said "in step 1")


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_a_static_loss_scale_undone_by_hand(script_runs: ScriptRuns, dtype: str) -> None:
    """`(loss * 1024).backward()`, the gradients divided by 1024 before the step: a
    healthy run; the losses judged and quoted are the script's, not the scaled ones."""
    run = script_runs.get("static_loss_scale.py", "--dtype", dtype)
    plain = script_runs.plain("static_loss_scale.py", "--dtype", dtype)
    assert (run.returncode, run.stdout) == (plain.returncode, plain.stdout) and run.returncode == 0, run.stderr
    assert run.events() == [] and run.report["steps"] == 96
    assert max(run.report["series"]["loss"]) < 5, run.report["series"]["loss"][:5]
    spike = script_runs.get("static_loss_scale.py", "--dtype", dtype, "--corrupt-step", "51").first("loss_spike")
    assert spike["step"] == 51 and spike["value"] < 1e4 and spike["baseline"] < 5, spike
    assert "static_loss_scale" not in spike
    diverged = script_runs.get("static_loss_scale.py", "--dtype", dtype, "--no-unscale")
    problem = diverged.report["summary"]["problems"][0]
    assert problem["kind"] == "divergence" and diverged.first("divergence")["static_loss_scale"] == 1024, problem
    assert "multiplied by 1024" in problem["advice"] and "divided by 1024" in problem["advice"], problem
