"""--halt-on under DDP, as docs/sanitizer-distributed.md describes it: with every
kind a NaN shows up as, all ranks stop at the NaN's step before its update and
write their reports; the rank where it was born says so."""
from __future__ import annotations

from pathlib import Path

from dist_helpers import torchrun

NAN_KINDS = "nonfinite_loss,nonfinite_activation,nonfinite_grad,nonfinite_param"


def test_every_rank_halts_at_the_nan_step_before_its_update(tmp_path: Path) -> None:
    run = torchrun("ddp_train.py", ["--nan-rank", "1", "--nan-step", "5"], tmp_path / "report.json",
                   ["--halt-on", NAN_KINDS])
    assert run.returncode != 0, run.output
    assert sorted(run.reports) == [0, 1], run.output
    for rank, first_kind in ((0, "nonfinite_grad"), (1, "nonfinite_activation")):
        report = run.reports[rank]
        assert report["exit_code"] == 3 and report["steps"] == 4  # step 5's update never ran
        assert [(e["kind"], e["step"]) for e in report["events"]][:1] == [(first_kind, 5)]
