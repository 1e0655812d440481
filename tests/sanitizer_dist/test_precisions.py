"""DDP in float64 and under bf16 autocast: the sanitizer leaves every rank's losses and
weights bit-identical to a plain torchrun, finds nothing in a healthy run, and finds a
NaN batch on one rank at its step, on that rank."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dist_helpers import SCRIPTS, WORLD, environment, launch, torchrun

STEPS = 8  # 64 samples, 2 ranks, batches of 8, 2 epochs


def _plain(args: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    folder.mkdir()
    return launch([sys.executable, "-m", "torch.distributed.run", "--standalone",
                   f"--nproc_per_node={WORLD}", "--max_restarts=0", "--monitor_interval=0.2",
                   str(SCRIPTS / "ddp_dtypes.py"), *args], folder, environment())


def _losses(folder: Path) -> list[str]:
    return [(folder / f"losses.rank{rank}.txt").read_text() for rank in range(WORLD)]


@pytest.mark.parametrize("args", [["--dtype", "float64"], ["--bf16"]], ids=["float64", "bf16"])
def test_numbers_are_those_of_a_plain_run(args: list[str], tmp_path: Path) -> None:
    plain = _plain(args, tmp_path / "plain")
    assert plain.returncode == 0, plain.stdout + plain.stderr
    (tmp_path / "watched").mkdir()
    run = torchrun("ddp_dtypes.py", args, tmp_path / "watched" / "report.json")
    assert run.returncode == 0, run.output
    watched = _losses(tmp_path / "watched")
    assert watched == _losses(tmp_path / "plain") and all(text.count("loss") == STEPS for text in watched)
    for rank, report in run.reports.items():
        assert report["steps"] == STEPS and report["events"] == [], (rank, report["events"])
        assert report["summary"]["diagnosis"] == f"no problems found in {STEPS} steps"


def test_nan_batch_on_one_rank_under_bf16(tmp_path: Path) -> None:
    run = torchrun("ddp_dtypes.py", ["--bf16", "--nan-rank", "0", "--nan-step", "3"], tmp_path / "report.json")
    assert run.returncode == 0, run.output
    born = run.reports[0]
    assert [(e["kind"], e["step"]) for e in born["events"][:2]] == [("nonfinite_input", 3), ("nonfinite_loss", 3)]
    assert born["summary"]["diagnosis"].startswith("1. nonfinite_input at step 3:")
    reached = run.reports[1]
    assert not [e for e in reached["events"] if e["kind"] == "nonfinite_input"]
    grad = next(e for e in reached["events"] if e["kind"] == "nonfinite_grad")
    assert grad["step"] == 3 and grad["through_allreduce"] is True and grad["rank"] == 1
