"""DDP that the script launches itself with `mp.spawn` (no torchrun, no RANK in the
environment): each watched child learns its rank from the process group."""
from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

from dist_helpers import SCRIPTS, TIMEOUT, environment, merge


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_spawned_ranks_take_their_rank_from_the_process_group(tmp_path: Path) -> None:
    report = tmp_path / "run.json"
    done = subprocess.run([sys.executable, "-m", "sanitizer", "--report", str(report),
                           str(SCRIPTS / "spawn_train.py"), str(_free_port()), "--nan-rank", "1", "--nan-step", "4"],
                          cwd=tmp_path, env=environment(), capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    children = {number: json.loads((tmp_path / f"run.child{number}.json").read_text()) for number in (1, 2)}
    by_rank = {child["rank"]: child for child in children.values()}
    assert sorted(by_rank) == [0, 1], [(child["rank"], child["world_size"]) for child in children.values()]
    for rank, child in by_rank.items():
        assert child["world_size"] == 2 and all(event["rank"] == rank for event in child["events"])
        divergence = child["detectors"]["rank_divergence"]
        assert divergence["status"] == "watching" and divergence["compared_through"] == 6, divergence
    assert [e["step"] for e in by_rank[1]["events"] if e["kind"] == "nonfinite_input"] == [4]
    assert not [e for e in by_rank[0]["events"] if e["kind"] == "nonfinite_input"]
    paths = [str(tmp_path / f"run.child{number}.json") for number in (1, 2)]
    merged_run, merged = merge(paths, tmp_path / "merged.json")
    assert [rank["rank"] for rank in merged["ranks"]] == [0, 1] and merged["verdict"]["left_out"] == []
    assert "first error: nonfinite_input on rank 1 at step 4" in merged_run.stdout
