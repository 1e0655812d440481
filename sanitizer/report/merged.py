"""One run from several rank reports: the merge `show` and `merge` both use.

The merged report is `{"schema": 1, "tool": "sanitizer", "merged": true,
"ranks": [...], "events": [...], "verdict": {...}, "ending": {...}}`: one
report per rank, in rank order; every event carries its rank, and events are in
step order, causes before effects within a step (catalogue order). The verdict
says which rank failed first (its own exception, halt or exit, not the collective
that failed on the others because it stopped), which rank saw what first, and
which ranks left no report or stopped early. `ending` is that first failure's
ending with its `rank`, so the diagnosis of the merged report opens with it as a
single rank's does with its crash.

Reports are ranks of one run or nothing: reports of different scripts or world
sizes are refused (`NotOneRun`). Two different reports of one rank of the same
script (two launches, or reports written before ranks were known) cannot both be
kept: the last given is, and the verdict says which files were left out.
"""
from __future__ import annotations

import re
import sys
from typing import Any

from sanitizer.core.catalogue import KIND_ORDER
from sanitizer.core.ending import crash_time, lost_peer
from sanitizer.report.access import ReportError, events_of, rank_number, rank_reports, read_report, severity_of


class NotOneRun(ReportError):
    """Reports that cannot be ranks of one run (different scripts or world sizes)."""


def load_reports(paths: list[str]) -> dict[str, Any]:
    """One report from the given files; several files are merged as ranks of one run."""
    reports = [read_report(path) for path in paths]
    return reports[0] if len(reports) == 1 else merge_reports(reports, paths)


def merge_reports(reports: list[dict[str, Any]], sources: list[str] | None = None) -> dict[str, Any]:
    """Per-rank reports (or merged ones) as one merged report with a verdict; `sources`
    names where each report came from, for the lines about reports left out. Raises
    `NotOneRun` for reports of different runs."""
    names = sources if sources is not None else [f"report {number}" for number in range(1, len(reports) + 1)]
    given = [(name, rank) for report, name in zip(reports, names) for rank in rank_reports(report)]
    _check_one_run(given)
    ranks, left_out = _unique_ranks(given)
    events = [dict(event, rank=event.get("rank") if event.get("rank") is not None else rank_of(rank))
              for rank in ranks for event in events_of(rank)]
    events.sort(key=_event_order)
    judged = verdict(ranks, events, left_out)
    merged = {"schema": 1, "tool": "sanitizer", "merged": True, "ranks": ranks, "events": events,
              "verdict": judged}
    if judged["failure"] is not None:
        merged["ending"] = judged["failure"]
    return merged


def left_out_warnings(merged: dict[str, Any]) -> list[str]:
    """One line per rank given more than once: which report was kept, which were not."""
    found = merged.get("verdict", {}).get("left_out") if isinstance(merged.get("verdict"), dict) else None
    return [_left_out_line(entry) for entry in found or [] if isinstance(entry, dict)]


def _left_out_line(entry: dict[str, Any]) -> str:
    dropped = ", ".join(map(str, entry.get("dropped", [])))
    return (f"rank {entry.get('rank')} was given more than once: kept {entry.get('kept')}, "
            f"left out {dropped} (two launches of the script, or reports that do not know their rank?)")


def rank_of(report: dict[str, Any]) -> int:
    """A rank report's number; reports without one count as rank 0."""
    number = rank_number(report)
    return number if number is not None else 0


def verdict(ranks: list[dict[str, Any]], events: list[dict[str, Any]],
            left_out: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    first: dict[str, dict[str, Any]] = {}
    for event in events:
        kind = event.get("kind")
        if not isinstance(kind, str):
            continue
        entry = first.get(kind)
        if entry is None:
            first[kind] = {"step": event.get("step"), "ranks": [event["rank"]], "severity": severity_of(event),
                           "message": event.get("message"), "module": event.get("module"),
                           "param": event.get("param")}
        elif event.get("step") == entry["step"] and event["rank"] not in entry["ranks"]:
            entry["ranks"].append(event["rank"])
    errors = sum(1 for event in events if severity_of(event) == "error")
    missing, stopped = _absent_and_stopped(ranks)
    failure = first_failure(ranks)
    lines = _verdict_lines(ranks, events, first, missing, stopped, failure)
    lines += [_left_out_line(entry) for entry in left_out or []]
    return {"first": first, "errors": errors, "failure": failure, "missing_ranks": missing,
            "stopped_ranks": stopped, "left_out": list(left_out or []), "lines": lines}


def first_failure(ranks: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The ending that stopped the run, with its `rank`: of the ranks that did not
    return, the earliest own failure (an exception, a halt, an exit status), before
    the collectives that failed on the others because that rank stopped and the
    SIGTERMs torchrun then sent them. None when every rank returned."""
    failed = [(rank_of(rank), _ending_step(rank), rank["ending"]) for rank in ranks if _failed(rank)]
    if not failed:
        return None
    own = [entry for entry in failed if not _consequence(entry[2])] or failed
    number, step, ending = min(own, key=lambda entry: (entry[1] if entry[1] is not None else sys.maxsize, entry[0]))
    return dict(ending, rank=number, step=step)


def _failed(rank: dict[str, Any]) -> bool:
    ending = rank.get("ending")
    return isinstance(ending, dict) and ending.get("how") not in (None, "returned")


def _consequence(ending: dict[str, Any]) -> bool:
    """An ending another rank's caused: its collective lost the peer, or torchrun stopped it."""
    return lost_peer(ending) or ending.get("how") == "terminated"


def _ending_step(rank: dict[str, Any]) -> int | None:
    """The step a rank's run ended in: its exception's, else the one after its last."""
    ending = rank.get("ending")
    step = _int(ending.get("step")) if isinstance(ending, dict) else None
    steps = _int(rank.get("steps"))
    return step if step is not None else (steps + 1 if steps is not None else None)


ENDING_WORDS = {"exception": "crashed", "halted": "was halted by the sanitizer (--halt-on)",
                "interrupted": "was interrupted", "terminated": "was terminated (SIGTERM)",
                "exit": "exited with an error status"}


def _ending_text(ending: dict[str, Any], failure: dict[str, Any] | None = None) -> str:
    """`crashed in step 5: RuntimeError: boom (train.py:11)`; a collective that lost its
    peer `failed in step 5 when rank 1 stopped` (the run's first `failure`)."""
    words = ENDING_WORDS.get(str(ending.get("how")), "ended early")
    step = crash_time(ending)
    if lost_peer(ending):
        who = f"rank {failure['rank']}" if failure is not None and not _consequence(failure) else "another rank"
        words, step = "failed", f"{step} when {who} stopped (its collective lost the peer)"
    detail = " ".join(str(ending.get("detail") or "").split())
    where = f" ({ending['where']})" if ending.get("where") else ""
    return f"{words}{step}{': ' + detail if detail else ''}{where}"


def _verdict_lines(ranks: list[dict[str, Any]], events: list[dict[str, Any]], first: dict[str, dict[str, Any]],
                   missing: list[int], stopped: list[dict[str, Any]], failure: dict[str, Any] | None) -> list[str]:
    world = _world_size(ranks, len(ranks))
    steps = ", ".join(f"rank {rank_of(rank)}: {rank.get('steps')} steps, exit {rank.get('exit_code')}"
                      for rank in ranks)
    lines = [f"{len(ranks)} of {world} rank reports ({steps})"]
    errors = [event for event in events if severity_of(event) == "error"]
    if failure is not None:  # as a single rank's diagnosis, a run that failed says so first
        lines.append(f"verdict: rank {failure['rank']} {_ending_text(failure)}")
    if not events and failure is None:
        lines.append("verdict: no problems found on any rank")
    elif events:
        head = errors[0] if errors else events[0]
        lead = "" if failure is not None else "verdict: "
        lines.append(f"{lead}first {'error' if errors else 'event'}: {head['kind']} on rank {head['rank']} "
                     f"at step {head.get('step')}: {head.get('message')}{_place(head)}")
        lines.append("first occurrence of each kind, in step order:")
        for kind, entry in first.items():
            who = ("rank " if len(entry["ranks"]) == 1 else "ranks ") + ", ".join(map(str, entry["ranks"]))
            lines.append(f"  step {entry['step']}: {kind} ({entry['severity']}) on {who}{_place(entry)}")
    for rank in missing:
        lines.append(f"rank {rank}: no report (killed before it could write one, or not passed to merge)")
    endings = {rank_of(rank): rank["ending"] for rank in ranks if _failed(rank)}
    for rank in stopped:
        others = f" (others reached {rank['others_steps']})" if rank["steps"] < rank["others_steps"] else ""
        ending = endings.get(rank["rank"])
        how = f": {_ending_text(ending, failure)}" if ending is not None else ""
        lines.append(f"rank {rank['rank']} ended early: exit {rank['exit_code']} after {rank['steps']} steps"
                     f"{others}{how}")
    return lines


def _place(entry: dict[str, Any]) -> str:
    where = entry.get("param") or entry.get("module")
    return f" [{where}]" if where else ""


def _absent_and_stopped(ranks: list[dict[str, Any]]) -> tuple[list[int], list[dict[str, Any]]]:
    present = {rank_of(rank) for rank in ranks}
    missing = [rank for rank in range(_world_size(ranks, 1)) if rank not in present]
    most = max([_int(rank.get("steps")) or 0 for rank in ranks] + [0])
    stopped = [{"rank": rank_of(rank), "exit_code": rank.get("exit_code"), "steps": _int(rank.get("steps")) or 0,
                "others_steps": most}
               for rank in ranks if rank.get("exit_code") not in (0, None) or (_int(rank.get("steps")) or 0) < most]
    return missing, stopped


def _world_size(ranks: list[dict[str, Any]], at_least: int) -> int:
    return max([_int(rank.get("world_size")) or 1 for rank in ranks] + [at_least])


def _check_one_run(given: list[tuple[str, dict[str, Any]]]) -> None:
    """Refuse reports that disagree on the script, its arguments or the world size:
    ranks of one run share them (but for the `--local_rank=N` the old launcher gives
    each), and a merge of two runs would name the wrong rank for everything."""
    for field_name in ("script", "world_size", "argv"):
        seen: dict[Any, str] = {}
        for name, rank in given:
            value = rank.get(field_name)
            if field_name == "argv":
                value = _shared_arguments(value)
            if value is not None and value not in seen:
                seen[value] = name
        if len(seen) > 1:
            (first, first_name), (second, second_name) = list(seen.items())[:2]
            raise NotOneRun(f"{first_name} and {second_name} are not ranks of one run: {field_name} "
                            f"{first!r} vs {second!r}; merge the reports of one run")


_LOCAL_RANK = re.compile(r"^--local[_-]rank(=\d+)?$")


def _shared_arguments(argv: Any) -> tuple[str, ...] | None:
    """The arguments every rank of one launch gets: `--local_rank=N` (and `--local_rank N`) left out."""
    if not isinstance(argv, list):
        return None
    shared: list[str] = []
    skip = False
    for argument in map(str, argv):
        if skip:
            skip = False
            continue
        if _LOCAL_RANK.match(argument):
            skip = "=" not in argument
            continue
        shared.append(argument)
    return tuple(shared)


def _unique_ranks(given: list[tuple[str, dict[str, Any]]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """One report per rank, in rank order, and what was left out: of different reports
    of one rank the last given wins (the same report given twice, as in a merged file
    and its rank file, is one report)."""
    by_rank: dict[int, tuple[str, dict[str, Any]]] = {}
    dropped: dict[int, list[str]] = {}
    for name, rank in given:
        number = rank_of(rank)
        earlier = by_rank.get(number)
        if earlier is not None and earlier[1] != rank:
            dropped.setdefault(number, []).append(earlier[0])
        by_rank[number] = (name, rank)
    left_out = [{"rank": number, "kept": by_rank[number][0], "dropped": names} for number, names in sorted(dropped.items())]
    return [by_rank[number][1] for number in sorted(by_rank)], left_out


def _event_order(event: dict[str, Any]) -> tuple[Any, ...]:
    step = _int(event.get("step"))
    return (step if step is not None else sys.maxsize, KIND_ORDER.get(event.get("kind"), len(KIND_ORDER)),
            rank_number(event) or 0)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
