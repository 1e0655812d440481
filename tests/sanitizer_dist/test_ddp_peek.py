"""The DDP tutorial's Trainer peeks at one batch before each epoch's set_epoch:
the peek is no epoch, so a correct run has no missing_set_epoch, and a run without
set_epoch is reported at the real step and epoch, at the training loop's line."""
from __future__ import annotations

from dist_helpers import LAUNCHES, SCRIPTS, DistRuns

LAUNCHES += [("peek", "ddp_peek.py"), ("peek_no_set_epoch", "ddp_peek.py", "--no-set-epoch")]


def _loop_line() -> int:
    lines = (SCRIPTS / "ddp_peek.py").read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.strip() == "for source, targets in self.loader:")


def test_peek_before_set_epoch_is_not_an_epoch(dist_runs: DistRuns) -> None:
    run = dist_runs.get("peek")
    assert run.returncode == 0, run.output
    for rank in (0, 1):
        assert run.reports[rank]["steps"] == 12
        assert run.events(rank) == [], run.output


def test_missing_set_epoch_at_the_real_step_and_epoch(dist_runs: DistRuns) -> None:
    run = dist_runs.get("peek_no_set_epoch")
    assert run.returncode == 0, run.output
    for rank in (0, 1):
        (event,) = run.events(rank, "missing_set_epoch")
        assert event["step"] == 5 and event["iteration"] == 2  # 4 steps per epoch: epoch 2 starts at step 5
        assert "training epoch 2 " in event["message"] and event["set_epoch_called"] is False
        assert event["where"].endswith(f"ddp_peek.py:{_loop_line()}")
