"""Reading sanitizer reports tolerantly: single-rank, merged, or several rank files.

Every accessor accepts missing or null fields, since reports come from runs that
may have died half-way and from future versions that add fields.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


class ReportError(Exception):
    """A file that is not a readable sanitizer report."""


def read_report(path: str | Path) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise ReportError(f"cannot read {path}: {error.strerror or error}") from error
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ReportError(f"{path} is not JSON: {error}") from error
    if not isinstance(data, dict):
        raise ReportError(f"{path} does not hold a report (expected a JSON object)")
    return data


def is_merged(report: dict) -> bool:
    return isinstance(report.get("ranks"), list)


def rank_reports(report: dict) -> list[dict]:
    """The per-rank reports a report holds: itself when it is not merged."""
    if not is_merged(report):
        return [report]
    ranks = [rank for rank in report["ranks"] if isinstance(rank, dict)]
    return ranks or [report]


def rank_number(report: dict) -> int | None:
    rank = report.get("rank")
    return rank if isinstance(rank, int) and not isinstance(rank, bool) else None


def field(report: dict, name: str) -> Any:
    """A metadata field, taken from the first rank when a merged report lacks it."""
    value = report.get(name)
    if value is None and is_merged(report):
        for rank in rank_reports(report):
            if rank.get(name) is not None:
                return rank[name]
    return value


def events_of(report: dict) -> list[dict]:
    """Every event as a dict, each carrying its rank where one is known."""
    raw = report.get("events")
    if not isinstance(raw, list) and is_merged(report):
        return [event for rank in rank_reports(report) for event in events_of(rank)]
    default_rank = rank_number(report)
    events = []
    for event in raw if isinstance(raw, list) else []:
        if isinstance(event, dict):
            if event.get("rank") is None and default_rank is not None:
                event = {**event, "rank": default_rank}
            events.append(event)
    return events


def sorted_events(events: list[dict]) -> list[dict]:
    """Chronological: by step (stepless last), then severity, then rank."""

    def key(event: dict) -> tuple:
        step = as_float(event.get("step"))
        known = step is not None and math.isfinite(step)
        rank = event.get("rank") if isinstance(event.get("rank"), int) else 0
        return (not known, step if known else 0.0, severity_rank(event), rank)

    return sorted(events, key=key)


def severity_of(event: dict) -> str:
    severity = event.get("severity")
    return severity if isinstance(severity, str) and severity else "info"


def severity_rank(event: dict) -> int:
    return SEVERITY_ORDER.get(severity_of(event), len(SEVERITY_ORDER))


def event_counts(report: dict) -> dict[str, int]:
    """Events per kind: the report's own summary when present, else counted."""
    summary = report.get("summary")
    counts = summary.get("counts") if isinstance(summary, dict) else None
    if isinstance(counts, dict) and counts:
        return {str(kind): int(n) for kind, n in counts.items() if isinstance(n, (int, float))}
    return dict(Counter(str(event.get("kind", "unknown")) for event in events_of(report)))


def notes(report: dict) -> list[str]:
    """Remarks about the run (not problems of the script): the report's own, else
    each rank's distinct ones."""
    own = _notes_of(report)
    if own or not is_merged(report):
        return own
    lines: list[str] = []
    for rank in rank_reports(report):
        lines += [line for line in _notes_of(rank) if line not in lines]
    return lines


def _notes_of(report: dict) -> list[str]:
    summary = report.get("summary")
    found = summary.get("notes") if isinstance(summary, dict) else None
    return [str(line) for line in found if line] if isinstance(found, list) else []


def as_float(value: Any) -> float | None:
    """A number from a report value: ints, floats and strings such as "nan" or "inf"."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None
