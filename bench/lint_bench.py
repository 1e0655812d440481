"""trainlint against TorchFix and a bare LibCST parse, on the installed torch
package's own sources or on real training scripts (see bench/corpora.py).

Every tool runs as a subprocess on a copy of the corpus in a temporary
directory (the cache and the touched file never modify site-packages).
Repetitions are interleaved, tool after tool, so that a slow minute of the
machine hurts every tool alike. Reported per tool: median wall time, files/s,
lines/s, the peak RSS of the largest single process (a worker), the peak RSS
of the whole process tree (sampled), and the number of findings.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from corpora import copy_corpus

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench"
TORCHFIX_VENV = REPO / ".bench" / "torchfix"
_SAMPLE_S = 0.05


# -- the corpus -----------------------------------------------------------------
def corpus_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def count_lines(files: list[Path]) -> int:
    return sum(path.read_bytes().count(b"\n") for path in files)


def mid_sized_file(files: list[Path]) -> Path:
    """The file of median size: the one the "touched" run edits."""
    by_size = sorted(files, key=lambda p: (p.stat().st_size, str(p)))
    return by_size[len(by_size) // 2]


# -- running one command and measuring it ---------------------------------------
@dataclass
class Measurement:
    wall_s: float
    max_process_rss_mb: float  # the largest single process of the tree
    tree_rss_mb: float  # the whole tree at its sampled peak
    cpu_s: float  # user + system time of the process and every descendant it reaped
    returncode: int
    stdout: str
    timed_out: bool = False


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found.extend(int(c) for c in handle.read().split())
        except OSError:
            pass
    return found


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _tree_rss_kb(root: int) -> int:
    total, pending = 0, [root]
    while pending:
        pid = pending.pop()
        total += _rss_kb(pid)
        pending.extend(_children(pid))
    return total


def measure(argv: list[str], cwd: Path, env: dict[str, str], timeout_s: float | None,
            merge_stderr: bool = False) -> Measurement:
    """Run `argv`, sampling the RSS of its process tree; `wait4` gives the
    largest RSS any single process of the tree reached. Its stderr is
    dropped, or kept in `stdout` with `merge_stderr`."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        stderr = subprocess.STDOUT if merge_stderr else subprocess.DEVNULL
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=stderr)
        tree_peak, timed_out = 0, False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            tree_peak = max(tree_peak, _tree_rss_kb(proc.pid))
            if timeout_s is not None and time.perf_counter() - start > timeout_s:
                for child in _children(proc.pid):
                    _kill(child)
                proc.kill()
                timed_out = True
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(_SAMPLE_S)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", errors="replace")
    # ru_maxrss of the reaped child covers it and every descendant it waited for
    largest_kb = usage.ru_maxrss
    cpu = usage.ru_utime + usage.ru_stime
    return Measurement(wall, largest_kb / 1024, max(tree_peak, largest_kb) / 1024, cpu, proc.returncode, text, timed_out)


def _kill(pid: int) -> None:
    for child in _children(pid):
        _kill(child)
    try:
        os.kill(pid, 9)
    except OSError:
        pass


# -- the tools --------------------------------------------------------------------
@dataclass
class Tool:
    name: str
    label: str
    argv: Callable[[Path], list[str]]  # given the corpus root
    count_findings: Callable[[str], int | None]
    before_each: Callable[[int], None] = lambda rep: None
    runs: list[Measurement] = field(default_factory=list)


def _json_findings(stdout: str) -> int | None:
    try:
        return len(json.loads(stdout))
    except ValueError:
        return None


def _line_findings(prefix: str) -> Callable[[str], int]:
    return lambda stdout: sum(1 for line in stdout.splitlines() if f": {prefix}" in line)


def _parse_count(stdout: str) -> int | None:
    return None


def make_tools(corpus: Path, jobs: int, touched: Path, selected: set[str], select: str | None) -> list[Tool]:
    python = sys.executable
    common = ["--jobs", str(jobs), "--exit-zero", "--format", "json", *(["--select", select] if select else [])]

    def touch(rep: int) -> None:
        with touched.open("a", encoding="utf-8") as handle:
            handle.write(f"# touched by the benchmark, repetition {rep}\n")

    tools = [
        Tool("cold", "trainlint cold (--no-cache)",
             lambda root: [python, "-m", "trainlint", "check", "--no-cache", *common, str(root)], _json_findings),
        Tool("warm", "trainlint warm (cache filled)",
             lambda root: [python, "-m", "trainlint", "check", *common, str(root)], _json_findings),
        Tool("touched", "trainlint after touching 1 file",
             lambda root: [python, "-m", "trainlint", "check", *common, str(root)], _json_findings, touch),
        Tool("noprefilter", "trainlint cold, pre-filter off",
             lambda root: [python, str(BENCH / "trainlint_no_prefilter.py"), "check", "--no-cache", *common, str(root)],
             _json_findings),
        Tool("parse", f"bare libcst.parse_module, {jobs} procs",
             lambda root: [python, str(BENCH / "parse_floor.py"), "--jobs", str(jobs), str(root)], _parse_count),
        Tool("torchfix", "TorchFix 0.7",
             lambda root: [str(TORCHFIX_VENV / "bin" / "torchfix"), "-j", str(jobs), str(root)], _line_findings("TOR")),
    ]
    return [tool for tool in tools if tool.name in selected]


# -- the benchmark ------------------------------------------------------------------
def machine() -> dict[str, str]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem_kb = int(Path("/proc/meminfo").read_text().split()[1])
        ram = f"{mem_kb / 1024 / 1024:.1f} GiB"
    except OSError:
        ram = "unknown"
    return {
        "nproc": str(os.cpu_count()),
        "cpu": cpu,
        "ram": ram,
        "python": platform.python_version(),
        "libcst": _version("libcst"),
        "torch": _version("torch"),
        "torchfix": _torchfix_version(),
    }


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def _torchfix_version() -> str:
    binary = TORCHFIX_VENV / "bin" / "torchfix"
    if not binary.exists():
        return "not installed"
    done = subprocess.run([str(binary), "--version"], capture_output=True, text=True)
    return (done.stdout or done.stderr).strip().split()[-1] if (done.stdout or done.stderr).strip() else "unknown"


def run_benchmark(kind: str, reps: int, jobs: int, selected: set[str], timeout_s: float | None,
                  keep: bool, json_out: Path | None, select: str | None = None) -> dict[str, object]:
    if "torchfix" in selected and not (TORCHFIX_VENV / "bin" / "torchfix").exists():
        print(f"bench: TorchFix is not installed in {TORCHFIX_VENV}; install it with\n"
              f"  python -m venv .bench/torchfix && .bench/torchfix/bin/pip install torchfix==0.7.0\n"
              f"skipping it this time.", file=sys.stderr)
        selected = selected - {"torchfix"}
    with scratch_dir("trainlint-bench-", keep) as workdir:
        corpus = copy_corpus(workdir, kind)
        files = corpus_files(corpus)
        lines = count_lines(files)
        touched = mid_sized_file(files)
        env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}
        tools = make_tools(corpus, jobs, touched, selected, select)
        print(f"corpus: {len(files)} files, {lines} lines ({kind}), copied to {workdir}; rules: {select or 'default'}")
        print(f"touched file: {touched.relative_to(workdir)}; {reps} repetition(s), {jobs} process(es)")
        if {"warm", "touched"} & selected:
            # fill the cache; it lives in the corpus copy (the cwd of the runs)
            measure([sys.executable, "-m", "trainlint", "check", "--jobs", str(jobs), "--exit-zero", "--format", "json",
                     *(["--select", select] if select else []), str(corpus)], workdir, env, timeout_s)
        for rep in range(reps):
            for tool in tools:
                tool.before_each(rep)
                result = measure(tool.argv(corpus), workdir, env, timeout_s)
                tool.runs.append(result)
                status = " TIMED OUT" if result.timed_out else (f" exit {result.returncode}" if result.returncode else "")
                print(f"  rep {rep + 1}/{reps} {tool.name:<11} {result.wall_s:9.2f} s {result.cpu_s:8.2f} s CPU  "
                      f"{result.max_process_rss_mb:7.0f} MB largest process{status}", flush=True)
        report = summarise(tools, len(files), lines, kind, reps, jobs)
        report["rules"] = select or "default"
        report["machine"] = machine()
        print_report(report)
        save_report(report, json_out)
        return report


@contextmanager
def scratch_dir(prefix: str, keep: bool) -> Iterator[Path]:
    """A temporary folder for the corpus copy, removed afterwards unless `keep`."""
    workdir = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield workdir
    finally:
        if keep:
            print(f"corpus kept in {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


def save_report(report: dict[str, object], json_out: Path | None) -> None:
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)  # a run of many minutes must not be lost to a missing folder
        json_out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        print(f"results written to {json_out}")


def summarise(tools: list[Tool], files: int, lines: int, kind: str, reps: int, jobs: int) -> dict[str, object]:
    rows: dict[str, dict[str, object]] = {}
    for tool in tools:
        ok = [run for run in tool.runs if not run.timed_out]
        if not ok:
            rows[tool.name] = {"label": tool.label, "timed_out": True}
            continue
        wall = statistics.median(run.wall_s for run in ok)
        counts = {tool.count_findings(run.stdout) for run in ok}
        rows[tool.name] = {
            "label": tool.label,
            "median_s": round(wall, 3),
            "all_s": [round(run.wall_s, 3) for run in tool.runs],
            "median_cpu_s": round(statistics.median(run.cpu_s for run in ok), 3),
            "files_per_s": round(files / wall, 1),
            "lines_per_s": round(lines / wall),
            "max_process_rss_mb": round(max(run.max_process_rss_mb for run in ok)),
            "tree_rss_mb": round(max(run.tree_rss_mb for run in ok)),
            "findings": sorted(counts, key=lambda c: (c is None, c))[0] if len(counts) == 1 else sorted(
                c for c in counts if c is not None),
            "failed_runs": sum(1 for run in ok if run.returncode != 0),
        }
    return {
        "corpus": kind,
        "files": files,
        "lines": lines,
        "repetitions": reps,
        "jobs": jobs,
        "tools": rows,
        "ratios": ratios(rows),
    }


def ratios(rows: dict[str, dict[str, object]]) -> dict[str, dict[str, object]]:
    def median(name: str, column: str = "median_s") -> float | None:
        row = rows.get(name)
        return row.get(column) if row else None  # type: ignore[return-value]

    out: dict[str, dict[str, object]] = {}

    def ratio(key: str, numerator: str, denominator: str, target: float, higher_is_better: bool, text: str) -> None:
        a, b = median(numerator), median(denominator)
        if a is None or b is None:
            return
        value = a / b
        met = value >= target if higher_is_better else value <= target
        cpu_a, cpu_b = median(numerator, "median_cpu_s"), median(denominator, "median_cpu_s")
        out[key] = {"value": round(value, 2), "target": f"{'>=' if higher_is_better else '<='} {target}",
                    "met": met, "what": text,
                    "cpu_value": round(cpu_a / cpu_b, 2) if cpu_a and cpu_b else None}

    ratio("torchfix_over_cold", "torchfix", "cold", 2.0, True, "TorchFix time / trainlint cold time")
    ratio("cold_over_parse", "cold", "parse", 1.5, False, "trainlint cold / bare parse")
    ratio("noprefilter_over_parse", "noprefilter", "parse", 1.5, False,
          "trainlint cold with the pre-filter off / bare parse")
    ratio("cold_over_warm", "cold", "warm", 20.0, True, "trainlint cold / warm")
    ratio("noprefilter_over_warm", "noprefilter", "warm", 20.0, True,
          "trainlint cold with the pre-filter off / warm")
    touched = median("touched")
    if touched is not None:
        out["touched_s"] = {"value": round(touched, 3), "target": "< 1 s", "met": touched < 1.0,
                            "what": "re-lint after touching one file (seconds)"}
    return out


def print_report(report: dict[str, object]) -> None:
    print()
    print(f"{report['corpus']} corpus: {report['files']} files, {report['lines']} lines; "
          f"median of {report['repetitions']}, {report['jobs']} process(es)")
    header = f"{'tool':<38} {'median s':>9} {'cpu s':>8} {'files/s':>9} {'lines/s':>9} {'max proc MB':>11} {'tree MB':>8} {'findings':>9}"
    print(header)
    print("-" * len(header))
    for row in report["tools"].values():  # type: ignore[union-attr]
        if row.get("timed_out"):
            print(f"{row['label']:<38} {'timed out':>9}")
            continue
        findings = row["findings"]
        shown = "-" if findings is None else str(findings)
        print(f"{row['label']:<38} {row['median_s']:>9.2f} {row['median_cpu_s']:>8.2f} {row['files_per_s']:>9.1f} {row['lines_per_s']:>9} "
              f"{row['max_process_rss_mb']:>11} {row['tree_rss_mb']:>8} {shown:>9}")
    print()
    for item in report["ratios"].values():  # type: ignore[union-attr]
        verdict = "met" if item["met"] else "NOT met"
        cpu = f"  (CPU time: {item['cpu_value']})" if item.get("cpu_value") is not None else ""
        print(f"{item['what']:<52} {item['value']:>8}  target {item['target']:<7} {verdict}{cpu}")


TOOLS = ("cold", "warm", "touched", "noprefilter", "parse", "torchfix")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/run.py lint", description="Benchmark trainlint on torch's sources.")
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="torch's nn, optim, utils/data, amp, cuda (default)")
    size.add_argument("--full", action="store_true", help="all of torch")
    size.add_argument("--training", action="store_true",
                      help="huggingface/diffusers examples/ at a pinned commit, from a git mirror (see bench/corpora.py)")
    size.add_argument("--project", action="store_true",
                      help="incremental runs on all of huggingface/diffusers at the same commit: cold once, then warm, "
                           "a comment edit and a summary-changing edit per repetition (see bench/project_bench.py)")
    parser.add_argument("--reps", type=int, help="repetitions (default: 3 quick, 1 full)")
    parser.add_argument("--jobs", type=int, default=2, help="processes for every tool (default: 2)")
    parser.add_argument("--only", help=f"comma-separated subset of {','.join(TOOLS)}")
    parser.add_argument("--timeout", type=float, help="seconds before one run is killed and counted as timed out")
    parser.add_argument("--json", type=Path, help="also write the results to this JSON file")
    parser.add_argument("--keep", action="store_true", help="keep the corpus copy")
    parser.add_argument("--pythonpath", type=Path,
                        help="with --project: a folder holding another trainlint package to measure (see bench/project_bench.py)")
    parser.add_argument("--select", help="rules for every trainlint run (e.g. TL: all rules, preview ones too; default: the default selection)")
    args = parser.parse_args(argv)
    selected = set(TOOLS) if not args.only else {name.strip() for name in args.only.split(",")}
    unknown = selected - set(TOOLS)
    if unknown:
        parser.error(f"unknown tool(s) {sorted(unknown)}; choose from {', '.join(TOOLS)}")
    if args.project:
        from project_bench import run_project_benchmark

        run_project_benchmark(args.reps or 3, args.jobs, args.timeout, args.keep, args.json, args.select, args.pythonpath)
        return 0
    kind = "full" if args.full else "training" if args.training else "quick"
    reps = args.reps or (1 if args.full else 3)
    run_benchmark(kind, reps, args.jobs, selected, args.timeout, args.keep, args.json, args.select)
    return 0
