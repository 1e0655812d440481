"""The human summary printed at the end of a sanitized run and by `sanitizer show`."""

from __future__ import annotations

import math
import shlex

from sanitizer.report.formatting import format_duration, plural
from sanitizer.report.access import (
    SEVERITY_ORDER,
    as_float,
    diagnoses,
    event_counts,
    events_of,
    field,
    is_merged,
    rank_reports,
    severity_of,
    sorted_events,
)

LISTED_EVENTS = 10


def format_summary(report: dict) -> str:
    """Plain text (no colour, no trailing newline) describing one report.

    Works for single-rank and merged reports and for partial ones with fields
    missing. Lines: a run line, the problem counts per kind, the first events
    in step order, and the diagnosis.
    """
    events = events_of(report)
    lines = [_run_line(report)]
    counts = event_counts(report)
    if not counts:
        lines.append("no events: no problems found")
    else:
        lines.extend(_count_lines(counts, events))
        lines.extend(_event_lines(events, show_rank=len(rank_reports(report)) > 1))
    lines.extend(f"diagnosis: {line}" for line in diagnoses(report))
    return "\n".join(lines)


def _run_line(report: dict) -> str:
    script = field(report, "script") or "?"
    parts = [f"sanitizer: {script}"]
    argv = field(report, "argv")
    if isinstance(argv, list) and len(argv) > 1:
        parts[0] += " " + shlex.join(str(arg) for arg in argv[1:])
    exit_code = field(report, "exit_code")
    parts.append(f"exit code {exit_code if exit_code is not None else '?'}")
    steps = field(report, "steps")
    duration = as_float(field(report, "duration_s"))
    step_text = plural(steps, "step") if isinstance(steps, int) else "? steps"
    parts.append(f"{step_text} in {format_duration(duration)}")
    device = field(report, "device")
    if device:
        parts.append(str(device))
    if is_merged(report) or len(rank_reports(report)) > 1:
        parts.append(f"{len(rank_reports(report))} ranks")
    return " | ".join(parts)


def _count_lines(counts: dict[str, int], events: list[dict]) -> list[str]:
    severity = {}
    first_step: dict[str, float] = {}
    for event in events:
        kind = str(event.get("kind", "unknown"))
        severity.setdefault(kind, severity_of(event))
        step = as_float(event.get("step"))
        if step is not None and math.isfinite(step):
            first_step[kind] = min(first_step.get(kind, step), step)
    by_severity: dict[str, int] = {}
    for kind, count in counts.items():
        by_severity[severity.get(kind, "info")] = by_severity.get(severity.get(kind, "info"), 0) + count
    total = sum(counts.values())
    tally = ", ".join(
        plural(n, name) for name, n in sorted(by_severity.items(), key=lambda item: _order(item[0]))
    )
    lines = [f"{plural(total, 'event')}: {tally}"]
    width = max(len(kind) for kind in counts)
    for kind in sorted(counts, key=lambda k: (_order(severity.get(k, "info")), k)):
        line = f"  {severity.get(kind, '?'):<8} {kind:<{width}}  x{counts[kind]}"
        if kind in first_step:
            line += f"  first at step {first_step[kind]:g}"
        lines.append(line)
    return lines


def _event_lines(events: list[dict], show_rank: bool) -> list[str]:
    if not events:
        return []
    ordered = sorted_events(events)
    lines = ["first events:"]
    for event in ordered[:LISTED_EVENTS]:
        lines.append("  " + _event_line(event, show_rank))
    if len(ordered) > LISTED_EVENTS:
        lines.append(f"  ... and {len(ordered) - LISTED_EVENTS} more in the report")
    return lines


def _event_line(event: dict, show_rank: bool) -> str:
    step = event.get("step")
    head = f"step {step}" if step is not None else "at end"
    if show_rank and event.get("rank") is not None:
        head = f"rank {event['rank']} {head}"
    text = f"{head}: {severity_of(event)} {event.get('kind', 'unknown')}"
    message = _one_line(event.get("message"))
    if message:
        text += f": {message}"
    places = [
        f"{name} {event[name]}" for name in ("module", "param") if event.get(name) not in (None, "")
    ]
    if event.get("where"):
        places.append(str(event["where"]))
    if places:
        text += f" ({', '.join(places)})"
    return text


def _one_line(value: object) -> str:
    return " ".join(str(value).split()) if value not in (None, "") else ""


def _order(severity: str) -> int:
    return SEVERITY_ORDER.get(severity, len(SEVERITY_ORDER))
