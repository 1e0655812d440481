"""A word-level LSTM language model (truncated backpropagation through time, clipped
gradients) at a learning rate 10,000 times too high: a cross-entropy that starts where an
untrained classifier does, jumps under 100 times at once, rises on and drifts down far
above its start. Healthy at its own rate."""
from __future__ import annotations

from sanitizer_harness import PRELAUNCH, ScriptRuns, line_of

PRELAUNCH += [("lstm_lm_lr.py",), ("lstm_lm_lr.py", "--lr", "20"), ("plain", "lstm_lm_lr.py", "--lr", "20")]


def test_a_language_model_at_a_healthy_rate_reports_nothing(script_runs: ScriptRuns) -> None:
    run = script_runs.get("lstm_lm_lr.py")
    assert run.returncode == 0, run.stderr
    assert run.events() == [], run.events()


def test_a_cross_entropy_from_chance_that_jumps_and_rises_on_is_divergence(script_runs: ScriptRuns) -> None:
    """4.37 at step 1, 388 at step 2 (89 times, under the 100 of a jump at once), then on
    up to about 900 over ten steps: the shape of a contrastive loss's warm-up (tiny first
    loss, up as the queue fills), but a class-indexed cross-entropy at ln 80 has no such
    warm-up. Divergence at step 2, not a start the judgement restarts from once it drifts
    down; the printed losses are those of a plain run."""
    run = script_runs.get("lstm_lm_lr.py", "--lr", "20")
    plain = script_runs.plain("lstm_lm_lr.py", "--lr", "20")
    assert (run.returncode, run.stdout) == (plain.returncode, plain.stdout), run.stderr
    (event,) = run.events("divergence")
    assert event["step"] == 2 and event["rule"] == "blow-up", event
    assert 4.3 < event["baseline"] < 4.45, event
    assert event["where"] == f"lstm_lm_lr.py:{line_of('lstm_lm_lr.py', 'loss = F.cross_entropy')}"
