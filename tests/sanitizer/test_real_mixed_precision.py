"""A next-character model trained under fp16 autocast on the CPU, its GradScaler's scale
set from the command line and its validation loss measured every ten steps. At a scale
of 6e-8 every fp16 gradient flushes to zero: the loss and the validation loss stay at
chance, which is the underflow's doing, not a model too small to fit."""
from __future__ import annotations

from sanitizer_harness import PRELAUNCH, ScriptRuns

TINY = ("--loss-scale", "6e-8")
PRELAUNCH += [("fp16_char_model.py",), ("fp16_char_model.py", *TINY), ("plain", "fp16_char_model.py", *TINY)]


def test_a_char_model_at_a_working_loss_scale_reports_nothing(script_runs: ScriptRuns) -> None:
    run = script_runs.get("fp16_char_model.py")
    assert run.returncode == 0, run.stderr
    assert run.events() == [], run.events()


def test_a_loss_that_never_falls_because_fp16_flushed_every_gradient_is_the_underflow(
        script_runs: ScriptRuns) -> None:
    """One problem, the underflow, with the stalled loss listed under it: the advice for
    underfitting (more capacity, another learning rate) would send the user the wrong way."""
    run = script_runs.get("fp16_char_model.py", *TINY)
    plain = script_runs.plain("fp16_char_model.py", *TINY)
    assert (run.returncode, run.stdout) == (plain.returncode, plain.stdout), run.stderr
    assert run.first("grad_underflow")["value"] == 1.0
    assert run.events("underfitting"), run.events()
    (problem,) = run.report["summary"]["problems"]
    assert problem["kind"] == "grad_underflow", problem
    assert any(line.startswith("underfitting at end") for line in problem["symptoms"]), problem
