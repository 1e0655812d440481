"""The self-contained HTML report page: metadata, diagnosis, charts and events.

Everything taken from a report is escaped: messages, module names and argv come
from user scripts. The page loads nothing: no scripts, fonts or images, and a
content security policy forbids any load should some markup slip through.
"""

from __future__ import annotations

import json
import shlex
from collections import Counter
from html import escape

from sanitizer.report.chart_model import Chart, build_charts, line_color
from sanitizer.report.formatting import format_duration, format_number, plural
from sanitizer.report.html_style import STYLESHEET
from sanitizer.report.access import (
    as_float,
    event_counts,
    events_of,
    field,
    notes,
    rank_reports,
    severity_of,
    sorted_events,
)
from sanitizer.report.diagnosis import Problem, diagnose
from sanitizer.report.svg_chart import render_chart

MAX_ROWS = 2000
MAX_DETAIL_CHARS = 600
CORE_EVENT_FIELDS = ("kind", "severity", "step", "message", "module", "param", "value", "where", "rank", "related")
POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def render_html(report: dict) -> str:
    events = sorted_events(events_of(report))
    charts = build_charts(report, events)
    multi_rank = len(rank_reports(report)) > 1
    script = str(field(report, "script") or "training run")
    body = [
        _header(report, events, script),
        _diagnosis(report, events),
        _charts(charts),
        _events_table(report, events, multi_rank),
        _lint_section(report),
        _metadata(report),
        '<footer>Written by <code>python -m sanitizer show</code>. '
        "Hover a marker for its event; click it to jump to its row.</footer>",
    ]
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{escape(script)}: sanitizer report</title>",
            f"<style>{STYLESHEET}</style>",
            "</head><body><main>",
            *body,
            "</main></body></html>\n",
        ]
    )


def _worst(events: list[dict]) -> str | None:
    severities = {severity_of(event) for event in events}
    return next((s for s in ("error", "warning", "info") if s in severities), None)


def _header(report: dict, events: list[dict], script: str) -> str:
    tally = Counter(severity_of(event) for event in events)
    status = ", ".join(plural(tally[s], s) for s in ("error", "warning", "info") if tally[s])
    worst = _worst(events)
    steps, exit_code = field(report, "steps"), field(report, "exit_code")
    rank_count = len(rank_reports(report))
    facts = [
        f"exit code {escape(str(exit_code))}" if exit_code is not None else "",
        plural(steps, "step") if isinstance(steps, int) else "",
        _duration(report) or "",
        escape(str(field(report, "device") or "")),
        plural(rank_count, "rank") if rank_count > 1 else "",
    ]
    return (
        '<header><p class="kicker">Sanitizer report</p>'
        f"<h1>{escape(script)}</h1>"
        f'<p class="headline"><span class="status {worst or "ok"}">'
        f"{escape(status) if status else 'no problems found'}</span>"
        f"{' · '.join(fact for fact in facts if fact)}</p></header>"
    )


def _diagnosis(report: dict, events: list[dict]) -> str:
    """One list item per problem, root cause first, with its evidence and symptoms."""
    problems = diagnose(report)
    items = "".join(_problem_item(problem) for problem in problems)
    body = f"<ol>{items}</ol>" if items else "<p>No problems were detected in this run.</p>"
    body += "".join(f'<p class="note">{escape(note)}</p>' for note in notes(report))
    worst = _worst([{"severity": problem.severity} for problem in problems]) or "ok"
    return f'<section class="diagnosis {worst}"><h2>Diagnosis</h2>{body}</section>'


def _problem_item(problem: Problem) -> str:
    details = [("evidence", line) for line in problem.evidence]
    details += problem.labelled_symptoms()
    details += [("try", problem.advice)] if problem.advice else []
    rows = "".join(f'<li><span class="label">{label}:</span> {escape(text)}</li>' for label, text in details)
    return (f'<li class="{escape(problem.severity)}"><span class="problem">{escape(problem.headline)}</span>'
            f"{f'<ul>{rows}</ul>' if rows else ''}</li>")


def _charts(charts: list[Chart]) -> str:
    if not charts:
        return '<h2>Training curves</h2><p class="none">The report holds no series to plot.</p>'
    parts = ['<section class="charts"><h2>Training curves</h2>', _severity_legend()]
    for number, chart in enumerate(charts):
        parts.append(f'<figure id="chart-{escape(chart.key)}"><h3>{escape(chart.title)}</h3>')
        parts.append(_line_legend(chart))
        parts.append(render_chart(chart, f"c{number}", _event_href))
        if chart.hidden_markers:
            parts.append(
                f'<p class="note">{chart.hidden_markers} more events on this chart are not marked '
                "(the most severe are shown); all are listed below.</p>"
            )
        parts.append("</figure>")
    parts.append("</section>")
    return "\n".join(parts)


def _event_href(index: int) -> str | None:
    return f"#ev-{index}" if index < MAX_ROWS else None


def _severity_legend() -> str:
    return (
        '<p class="legend">Events: '
        '<span><span class="dot error"></span>error</span>'
        '<span><span class="dot warning"></span>warning</span>'
        '<span><span class="dot info"></span>info</span>'
        "<span>▼ at the top edge: no finite value at that step</span></p>"
    )


def _line_legend(chart: Chart) -> str:
    labelled = [line for line in chart.lines if line.label]
    if not labelled:
        return ""
    items = "".join(
        f'<span><span class="swatch{" dashed" if line.dashed else ""}" '
        f'style="border-color:{line_color(line)}"></span>{escape(line.label)}</span>'
        for line in labelled
    )
    return f'<p class="legend">{items}</p>'


def _events_table(report: dict, events: list[dict], multi_rank: bool) -> str:
    parts = ['<section class="events-section"><h2>Events</h2>']
    if not events:
        parts.append('<p class="none">No events were recorded.</p></section>')
        return "\n".join(parts)
    counts = Counter(event_counts(report))
    parts.append(
        '<ul class="counts">'
        + "".join(f"<li>{escape(kind)} × {n}</li>" for kind, n in counts.most_common())
        + "</ul>"
    )
    rank_head = "<th>Rank</th>" if multi_rank else ""
    parts.append(
        '<table class="events"><thead><tr><th>Step</th>'
        f"{rank_head}<th>Severity</th><th>Kind</th><th>Message</th><th>Where</th><th>Value</th>"
        "</tr></thead><tbody>"
    )
    parts += [_event_row(index, event, multi_rank) for index, event in enumerate(events[:MAX_ROWS])]
    parts.append("</tbody></table>")
    if len(events) > MAX_ROWS:
        parts.append(
            f'<p class="note">Showing the first {MAX_ROWS} of {len(events)} events; '
            "the JSON report holds them all.</p>"
        )
    parts.append("</section>")
    return "\n".join(parts)


def _event_row(index: int, event: dict, multi_rank: bool) -> str:
    severity = severity_of(event)
    step = event.get("step")
    rank_cell = f'<td class="num">{_text(event.get("rank"))}</td>' if multi_rank else ""
    return (
        f'<tr id="ev-{index}"><td class="num">{_text(step) if step is not None else "end"}</td>'
        f'{rank_cell}<td class="sev {escape(severity)}">{escape(severity)}</td>'
        f"<td class=\"kind\"><code>{_text(event.get('kind', 'unknown'))}</code></td>"
        f"<td>{_text(event.get('message'))}{_details(event)}</td>"
        f"<td>{_location(event)}</td><td class=\"num\">{_text(_readable(event.get('value')))}</td></tr>"
    )


def _location(event: dict) -> str:
    parts = []
    for name in ("module", "param", "where"):
        if event.get(name) not in (None, ""):
            parts.append(f'<span class="detail">{name} <code>{_text(event[name])}</code></span>')
    for finding in event.get("related") or ():
        if isinstance(finding, dict):
            parts.append(f'<span class="detail">lint <code>{_finding_text(finding)}</code></span>')
    return "".join(parts)


def _lint_section(report: dict) -> str:
    """The script's trainlint findings, when the run linted it."""
    findings = [finding for finding in field(report, "lint") or () if isinstance(finding, dict)]
    if not findings:
        return ""
    items = "".join(f"<li><code>{_finding_text(finding)}</code> {_text(finding.get('message'))}</li>"
                    for finding in findings)
    return f'<section><h2>Lint findings in the script</h2><ul class="lint">{items}</ul></section>'


def _finding_text(finding: dict) -> str:
    return _text(f"{finding.get('path', '?')}:{finding.get('line', '?')} {finding.get('code', '?')}")


def _details(event: dict) -> str:
    """Fields beyond the documented ones (baseline, culprit, ...), shown as given."""
    extra = [name for name in event if name not in CORE_EVENT_FIELDS and event[name] is not None]
    return "".join(
        f'<span class="detail">{escape(str(name))}: {_text(_readable(event[name]))}</span>' for name in extra
    )


def _metadata(report: dict) -> str:
    argv = field(report, "argv")
    rows = [
        ("Script", field(report, "script")),
        ("Arguments", shlex.join(map(str, argv[1:])) if isinstance(argv, list) and argv[1:] else None),
        ("Exit code", field(report, "exit_code")),
        ("Steps", field(report, "steps")),
        ("Duration", _duration(report)),
        ("Device", field(report, "device")),
        ("Ranks", _ranks_text(report)),
        ("Sanitizer version", field(report, "version")),
        ("Report schema", field(report, "schema")),
    ]
    items = "".join(
        f"<dt>{name}</dt><dd><code>{_text(value)}</code></dd>" if name in ("Script", "Arguments")
        else f"<dt>{name}</dt><dd>{_text(value)}</dd>"
        for name, value in rows
        if value not in (None, "")
    )
    return f'<section><h2>Run</h2><dl class="meta">{items}</dl></section>'


def _duration(report: dict) -> str | None:
    seconds = as_float(field(report, "duration_s"))
    return format_duration(seconds) if seconds is not None else None


def _ranks_text(report: dict) -> str | None:
    ranks = rank_reports(report)
    world = field(report, "world_size")
    if len(ranks) > 1:
        numbers = ", ".join(str(rank.get("rank", "?")) for rank in ranks)
        return f"{numbers} (world size {world if world is not None else len(ranks)})"
    rank = field(report, "rank")
    return f"rank {rank} of world size {world}" if rank is not None and world not in (None, 1) else None


def _readable(value: object) -> object:
    """Floats as people write them (`2.26e+29`), inside lists and dicts too."""
    if isinstance(value, float):
        return format_number(value)
    if isinstance(value, list):
        return [_readable(item) for item in value]
    if isinstance(value, dict):
        return {key: _readable(item) for key, item in value.items()}
    return value


def _text(value: object) -> str:
    """Any report value as escaped, length-limited text."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    if len(text) > MAX_DETAIL_CHARS:
        text = text[: MAX_DETAIL_CHARS - 1] + "…"
    return escape(text)
