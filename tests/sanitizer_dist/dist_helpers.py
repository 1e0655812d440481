"""Launch a script with real `torchrun --nproc_per_node 2` (gloo, CPU) under
the sanitizer, with a bounded wall time, and load the per-rank reports."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = Path(__file__).resolve().parent / "scripts"
TIMEOUT = 150  # a hang in the sanitizer would show here as subprocess.TimeoutExpired
WORLD = 2
# what a rank prints when torch's gloo backend aborts it as the process exits, after all
# its work: now and then, on a loaded machine, with or without the sanitizer
GLOO_EXIT_ABORT = "terminate called without an active exception"


@dataclass
class DistRun:
    returncode: int
    output: str
    report_stem: Path
    reports: dict[int, dict[str, Any]] = field(default_factory=dict)

    def events(self, rank: int, kind: str | None = None) -> list[dict[str, Any]]:
        assert rank in self.reports, f"no report from rank {rank}\n{self.output}"
        return [e for e in self.reports[rank]["events"] if kind is None or e["kind"] == kind]

    def first(self, rank: int, kind: str) -> dict[str, Any]:
        found = self.events(rank, kind)
        assert found, f"no {kind} on rank {rank}: {self.events(rank)}\n{self.output}"
        return found[0]

    def report_paths(self) -> list[str]:
        return [str(self.report_stem.with_name(f"{self.report_stem.stem}.rank{r}.json")) for r in sorted(self.reports)]


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["OMP_NUM_THREADS"] = "1"
    env.update(extra or {})
    return env


def torchrun(script: str, args: list[str], report: Path, options: list[str] | None = None,
             env: dict[str, str] | None = None) -> DistRun:
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={WORLD}",
               "--max_restarts=0", "--monitor_interval=0.2",
               "-m", "sanitizer", "--report", str(report), *(options or []), str(SCRIPTS / script), *args]
    done = launch(command, report.parent, environment(env))
    run = DistRun(done.returncode, done.stdout + done.stderr, report)
    for rank in range(WORLD):
        path = report.with_name(f"{report.stem}.rank{rank}.json")
        if path.exists():
            run.reports[rank] = json.loads(path.read_text())
    return run


def launch(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`command` (a torchrun) run to its end; launched once more when it failed only by
    gloo's abort at exit (`GLOO_EXIT_ABORT`), which is torch's, not the script's."""
    for _ in range(2):
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT)
        if done.returncode == 0 or GLOO_EXIT_ABORT not in done.stdout + done.stderr:
            break
    return done


def merge(paths: list[str], out: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    done = subprocess.run([sys.executable, "-m", "sanitizer", "merge", *paths, "--out", str(out)],
                          env=environment(), capture_output=True, text=True, timeout=60)
    return done, json.loads(out.read_text())


class DistRuns:
    """Each named launch runs once per session, one at a time (tests/conftest.py starts
    them with the session, beside the other tests)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.pool = ThreadPoolExecutor(max_workers=1)
        self.futures: dict[str, Future[DistRun]] = {}

    def submit(self, name: str, script: str, *args: str, env: dict[str, str] | None = None) -> None:
        if name not in self.futures:
            folder = self.directory / name
            folder.mkdir()
            self.futures[name] = self.pool.submit(torchrun, script, list(args), folder / "report.json", None, env)

    def get(self, name: str) -> DistRun:
        return self.futures[name].result()


LAUNCHES: list[tuple[str, ...]] = [
    ("healthy", "ddp_train.py"),
    ("nan_rank1", "ddp_train.py", "--nan-rank", "1", "--nan-step", "5"),
    ("nan_rank1_compiled", "ddp_train.py", "--compile", "--nan-rank", "1", "--nan-step", "5"),
    ("altered_rank1", "ddp_train.py", "--alter-rank", "1", "--alter-step", "7"),
    ("no_set_epoch", "ddp_train.py", "--no-set-epoch"),
    ("crash_rank1", "ddp_train.py", "--crash-rank", "1", "--crash-step", "3"),
    ("killed_rank1", "ddp_train.py", "--kill-rank", "1", "--kill-step", "3"),
    ("fsdp2", "fsdp_train.py"),
]
