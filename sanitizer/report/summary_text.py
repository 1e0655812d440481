"""The human summary printed at the end of a sanitized run and by `sanitizer show`."""

from __future__ import annotations

import shlex
from collections import Counter

from sanitizer.report.access import (
    SEVERITY_ORDER,
    as_float,
    event_counts,
    events_of,
    field,
    is_merged,
    notes,
    rank_reports,
    severity_of,
)
from sanitizer.report.diagnosis import crash_lint, diagnose, diagnosis_lines
from sanitizer.report.formatting import format_duration, no_problems_line, plural


def format_summary(report: dict) -> str:
    """Plain text (no colour, no trailing newline) describing one report.

    Works for single-rank and merged reports and for partial ones with fields
    missing. Lines: the run, the event tally, then the diagnosis: problems in
    cause order, each with its evidence, the symptoms it explains and advice.
    """
    return "\n".join(summary_lines(report))


def summary_lines(report: dict) -> list[str]:
    problems = diagnose(report)
    lines = [_run_line(report)]
    if not problems:
        summary = field(report, "summary")
        children = summary.get("child_errors") if isinstance(summary, dict) else None
        origin = summary.get("child_origin") if isinstance(summary, dict) else None
        lines.append(no_problems_line(field(report, "steps"), children if isinstance(children, int) else 0, origin))
    else:
        lines.append(f"{plural(len(problems), 'problem')}, root cause first ({_tally(report)}):")
        lines += [f"  {line}" for line in diagnosis_lines(problems, [])]
    lines += _unseen_lint(report)
    return lines + [f"note: {note}" for note in notes(report)]


def _unseen_lint(report: dict, shown: int = 3) -> list[str]:
    """The lint findings (errors and warnings) of the run's files that no runtime event
    points at: bugs the run did not show, on lines it may not have reached or whose
    symptom stayed under its thresholds (a loss kept for a few steps per epoch)."""
    lint = field(report, "lint")
    if not isinstance(lint, list):
        return []
    related = {(item.get("path"), item.get("line"), item.get("code")) for event in events_of(report)
               for item in (event.get("related") or []) if isinstance(item, dict)}
    crashed_on = crash_lint(report)  # the missing scaler.update() a GradScaler error ended the run on
    if crashed_on is not None:
        related.add((crashed_on.get("path"), crashed_on.get("line"), crashed_on.get("code")))
    unseen = [finding for finding in lint if isinstance(finding, dict)
              and finding.get("severity") in ("error", "warning")
              and (finding.get("path"), finding.get("line"), finding.get("code")) not in related]
    if not unseen:
        return []
    unseen.sort(key=lambda finding: finding.get("severity") != "error")  # errors first, each kind in file order
    lines = [f"lint, not seen at run time ({plural(len(unseen), 'finding')}):"]
    for finding in unseen[:shown]:
        name = str(finding.get("name") or "").replace("-", " ")
        lines.append(f"  {finding.get('path', '?')}:{finding.get('line', '?')} {name} ({finding.get('code')})")
    if len(unseen) > shown:
        lines.append(f"  ... and {len(unseen) - shown} more in the report's `lint`")
    return lines


def _tally(report: dict) -> str:
    counts = event_counts(report)
    if not counts:
        return "no events"
    severity = {str(event.get("kind", "unknown")): severity_of(event) for event in events_of(report)}
    by_severity: Counter[str] = Counter()
    for kind, count in counts.items():
        by_severity[severity.get(kind, "info")] += count
    ordered = sorted(by_severity.items(), key=lambda item: SEVERITY_ORDER.get(item[0], len(SEVERITY_ORDER)))
    return f"{plural(sum(counts.values()), 'event')}: " + ", ".join(plural(n, name) for name, n in ordered)


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
