"""Incremental runs of a whole project: huggingface/diffusers at the pinned
commit (every `.py` of the repository, about 2,100 files), linted with the
cache as users run it.

One cold run fills the cache; then, for each repetition and each edit, the
cache and the edited file are put back as the cold run left them, the edit
is made and one run is measured:

- `warm`: nothing changed;
- `comment`: a comment appended to `src/diffusers/training_utils.py`;
- `summary`: a helper that empties the CUDA cache appended to the same file
  (its function summaries change: the project is worked out again).

Reported: median wall and CPU time (user + system of the process and its
workers) and how many files each run linted (`-v`).
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import sys
from pathlib import Path
from typing import Callable

from corpora import copy_corpus
from lint_bench import REPO, Measurement, machine, measure, save_report, scratch_dir

TOUCHED = Path("src/diffusers/training_utils.py")
EDITS: dict[str, Callable[[str], str]] = {
    "warm": lambda text: text,
    "comment": lambda text: text + "# touched by the benchmark\n",
    "summary": lambda text: text + "\n\ndef _release_memory():\n    torch.cuda.empty_cache()\n",
}
LABELS = {
    "cold": "cold (cache empty)",
    "warm": "warm (nothing changed)",
    "comment": f"a comment added to {TOUCHED.name}",
    "summary": f"a helper added to {TOUCHED.name} (summaries change)",
}
_LINTED = re.compile(r"(\d+) linted, (\d+) from the cache")


def run_project_benchmark(
    reps: int, jobs: int, timeout_s: float | None, keep: bool, json_out: Path | None, select: str | None,
    pythonpath: Path | None = None,
) -> dict[str, object]:
    """`pythonpath`: a folder holding another `trainlint` package to measure
    (an older checkout's `lint/` linked as `trainlint`, with its `rules/`
    linked inside it as `rules`), instead of the installed one."""
    with scratch_dir("trainlint-project-bench-", keep) as workdir:
        root = copy_corpus(workdir, "project")
        touched = root / TOUCHED
        original = touched.read_text(encoding="utf-8")
        env = {"PYTHONPATH": str(pythonpath or REPO), "PYTHONDONTWRITEBYTECODE": "1"}
        argv = [sys.executable, "-m", "trainlint", "check", "-v", "--exit-zero", "--jobs", str(jobs),
                *(["--select", select] if select else []), "."]
        files = sum(1 for _ in root.rglob("*.py"))
        print(f"project: {files} files of diffusers, copied to {root}; rules: {select or 'default'}; "
              f"{reps} repetition(s), {jobs} process(es); linter: {pythonpath or 'installed'}")
        runs: dict[str, list[tuple[Measurement, str]]] = {name: [] for name in LABELS}
        cold = measure(argv, root, _env(env), timeout_s, merge_stderr=True)
        runs["cold"].append((cold, _linted(cold)))
        _show("cold", cold)
        cache = root / ".trainlint_cache"
        snapshot = workdir / "cache-after-cold"
        shutil.copytree(cache, snapshot)
        for rep in range(reps):
            for name, edit in EDITS.items():
                shutil.rmtree(cache)
                shutil.copytree(snapshot, cache)
                touched.write_text(edit(original), encoding="utf-8")
                result = measure(argv, root, _env(env), timeout_s, merge_stderr=True)
                runs[name].append((result, _linted(result)))
                _show(f"rep {rep + 1}/{reps} {name}", result)
        touched.write_text(original, encoding="utf-8")
        report = _report(runs, files, reps, jobs, select)
        _print(report)
        save_report(report, json_out)
        return report


def _env(extra: dict[str, str]) -> dict[str, str]:
    return {**os.environ, **extra}


def _linted(result: Measurement) -> str:
    """`N linted, M from the cache`, as `-v` reports it on stderr (kept in stdout here)."""
    match = _LINTED.search(result.stdout)
    return f"{match.group(1)} linted" if match else "?"


def _show(name: str, result: Measurement) -> None:
    status = " TIMED OUT" if result.timed_out else (f" exit {result.returncode}" if result.returncode else "")
    print(f"  {name:<16} {result.wall_s:8.2f} s {result.cpu_s:8.2f} s CPU  {_linted(result)}{status}", flush=True)


def _report(runs: dict[str, list[tuple[Measurement, str]]], files: int, reps: int, jobs: int,
            select: str | None) -> dict[str, object]:
    rows = {}
    for name, measured in runs.items():
        ok = [m for m, _ in measured if not m.timed_out]
        rows[name] = {
            "label": LABELS[name],
            "median_s": round(statistics.median(m.wall_s for m in ok), 3) if ok else None,
            "median_cpu_s": round(statistics.median(m.cpu_s for m in ok), 3) if ok else None,
            "all_s": [round(m.wall_s, 3) for m, _ in measured],
            "all_cpu_s": [round(m.cpu_s, 3) for m, _ in measured],
            "linted": sorted({linted for _, linted in measured}),
        }
    return {"corpus": "project", "files": files, "repetitions": reps, "jobs": jobs,
            "rules": select or "default", "runs": rows, "machine": machine()}


def _print(report: dict[str, object]) -> None:
    print()
    print(f"{'run':<48} {'median s':>9} {'cpu s':>8}  files linted")
    for row in report["runs"].values():  # type: ignore[union-attr]
        wall = f"{row['median_s']:9.2f}" if row["median_s"] is not None else f"{'timed out':>9}"
        cpu = f"{row['median_cpu_s']:8.2f}" if row["median_cpu_s"] is not None else f"{'-':>8}"
        print(f"{row['label']:<48} {wall} {cpu}  {', '.join(row['linted'])}")
    for name in ("comment", "summary"):
        row = report["runs"][name]  # type: ignore[index]
        if row["median_s"] is not None:
            verdict = "met" if row["median_s"] < 1.0 else "NOT met"
            print(f"re-lint after touching one file ({name}): {row['median_s']:.2f} s  target < 1 s  {verdict}")
