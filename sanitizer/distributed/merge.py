"""`python -m sanitizer merge REPORTS... [--out merged.json]`: one verdict for a multi-rank run.

The per-rank reports are merged into `{"schema": 1, "tool": "sanitizer",
"merged": true, "ranks": [...], "events": [...]}` (what `show` reads), events
in step order, each carrying its rank, plus a `verdict` block. The verdict
printed on stdout says which rank saw what first: the first event of the run,
then each kind's first rank and step, and the ranks that left no report or
stopped early.

Exit status: 0 when no error-level event was found, 1 when some were, 2 when a
report cannot be read.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Any

from sanitizer.core.catalogue import KINDS
from sanitizer.report import access
from sanitizer.report.json_report import write_atomic

KIND_ORDER = {name: index for index, name in enumerate(KINDS)}  # catalogue order: cause before effect


class MergeError(Exception):
    """A file that is not a readable sanitizer report."""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m sanitizer merge",
                                     description="Merge the per-rank reports of one run and print one verdict.")
    parser.add_argument("reports", nargs="+", metavar="REPORT", help="per-rank report JSON files")
    parser.add_argument("--out", metavar="PATH",
                        help="where the merged JSON goes (default: the reports' name with .merged, "
                             "e.g. sanitizer-report.merged.json next to the first report)")
    try:
        options = parser.parse_args(argv)
    except SystemExit as exit_request:
        return int(exit_request.code or 0)
    try:
        reports = [read_report(path) for path in options.reports]
    except (MergeError, access.ReportError) as error:
        print(f"sanitizer merge: {error}", file=sys.stderr)
        return 2
    merged = merge(reports)
    out = options.out or default_output(options.reports[0])
    try:
        write_atomic(out, merged)
    except OSError as error:
        print(f"sanitizer merge: cannot write {out}: {error}", file=sys.stderr)
        return 2
    print("\n".join(merged["verdict"]["lines"]))
    print(f"merged report: {out}")
    return 1 if merged["verdict"]["errors"] else 0


def read_report(path: str) -> dict[str, Any]:
    data = access.read_report(path)
    if data.get("tool") != "sanitizer":
        raise MergeError(f"{path} is not a sanitizer report")
    return data


def default_output(first_report: str) -> str:
    """`out/run.rank0.json` -> `out/run.merged.json`."""
    directory, name = os.path.split(first_report)
    stem = re.sub(r"\.rank\d+$", "", os.path.splitext(name)[0])
    return os.path.join(directory, f"{stem}.merged.json")


def merge(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-rank reports (or merged ones) as one merged report with a verdict."""
    ranks = _unique_ranks([rank for report in reports for rank in _ranks_of(report)])
    events = [dict(event, rank=event.get("rank", _rank(rank))) for rank in ranks
              for event in rank.get("events") or () if isinstance(event, dict)]
    events.sort(key=_event_order)
    return {"schema": 1, "tool": "sanitizer", "merged": True, "ranks": ranks, "events": events,
            "verdict": verdict(ranks, events)}


def verdict(ranks: list[dict[str, Any]], events: list[dict[str, Any]]) -> dict[str, Any]:
    first: dict[str, dict[str, Any]] = {}
    for event in events:
        kind = event.get("kind")
        if not isinstance(kind, str):
            continue
        entry = first.get(kind)
        if entry is None:
            first[kind] = {"step": event.get("step"), "ranks": [event["rank"]], "severity": event.get("severity"),
                           "message": event.get("message"), "module": event.get("module"),
                           "param": event.get("param")}
        elif event.get("step") == entry["step"] and event["rank"] not in entry["ranks"]:
            entry["ranks"].append(event["rank"])
    errors = sum(1 for event in events if event.get("severity") == "error")
    missing, stopped = _absent_and_stopped(ranks)
    lines = _verdict_lines(ranks, events, first, missing, stopped)
    return {"first": first, "errors": errors, "missing_ranks": missing, "stopped_ranks": stopped,
            "lines": lines}


def _verdict_lines(ranks: list[dict[str, Any]], events: list[dict[str, Any]], first: dict[str, dict[str, Any]],
                   missing: list[int], stopped: list[dict[str, Any]]) -> list[str]:
    world = max([_int(rank.get("world_size")) or 1 for rank in ranks] + [len(ranks)])
    steps = ", ".join(f"rank {_rank(rank)}: {rank.get('steps')} steps, exit {rank.get('exit_code')}"
                      for rank in ranks)
    lines = [f"{len(ranks)} of {world} rank reports ({steps})"]
    errors = [event for event in events if event.get("severity") == "error"]
    if not events:
        lines.append("verdict: no problems found on any rank")
    else:
        head = errors[0] if errors else events[0]
        lines.append(f"verdict: first {'error' if errors else 'event'}: {head['kind']} on rank {head['rank']} "
                     f"at step {head.get('step')}: {head.get('message')}{_place(head)}")
        lines.append("first occurrence of each kind, in step order:")
        for kind, entry in first.items():
            who = ("rank " if len(entry["ranks"]) == 1 else "ranks ") + ", ".join(map(str, entry["ranks"]))
            lines.append(f"  step {entry['step']}: {kind} ({entry['severity']}) on {who}{_place(entry)}")
    for rank in missing:
        lines.append(f"rank {rank}: no report (killed before it could write one, or not passed to merge)")
    for rank in stopped:
        lines.append(f"rank {rank['rank']} ended early: exit {rank['exit_code']} after {rank['steps']} steps "
                     f"(others reached {rank['others_steps']})")
    return lines


def _place(entry: dict[str, Any]) -> str:
    where = entry.get("param") or entry.get("module")
    return f" [{where}]" if where else ""


def _absent_and_stopped(ranks: list[dict[str, Any]]) -> tuple[list[int], list[dict[str, Any]]]:
    world = max([_int(rank.get("world_size")) or 1 for rank in ranks] + [1])
    present = {_rank(rank) for rank in ranks}
    missing = [rank for rank in range(world) if rank not in present]
    most = max([_int(rank.get("steps")) or 0 for rank in ranks] + [0])
    stopped = [{"rank": _rank(rank), "exit_code": rank.get("exit_code"), "steps": _int(rank.get("steps")) or 0,
                "others_steps": most}
               for rank in ranks if rank.get("exit_code") not in (0, None) or (_int(rank.get("steps")) or 0) < most]
    return missing, stopped


def _ranks_of(report: dict[str, Any]) -> list[dict[str, Any]]:
    inner = report.get("ranks")
    if report.get("merged") and isinstance(inner, list):
        return [rank for rank in inner if isinstance(rank, dict)]
    return [report]


def _unique_ranks(ranks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One report per rank (the last given wins), in rank order."""
    by_rank = {_rank(rank): rank for rank in ranks}
    return [by_rank[rank] for rank in sorted(by_rank)]


def _event_order(event: dict[str, Any]) -> tuple[Any, ...]:
    step = event.get("step")
    return (step if isinstance(step, int) else sys.maxsize, KIND_ORDER.get(event.get("kind"), len(KIND_ORDER)),
            event["rank"])


def _rank(report: dict[str, Any]) -> int:
    return _int(report.get("rank")) or 0


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
