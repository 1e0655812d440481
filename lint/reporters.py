"""Output formats: text, json, sarif, github, gitlab, junit, and statistics.

Formats that need the rule classes (sarif) or extra modules are imported when
chosen, so that a run served from the cache does not load LibCST."""

from __future__ import annotations

import json
from collections import Counter
from typing import Callable, Sequence

from trainlint.finding import Finding, placed_message

Reporter = Callable[[Sequence[Finding]], str]


def finding_lines(findings: Sequence[Finding]) -> str:
    """`path:line:col: CODE [*] message`, one line per finding; in a notebook,
    `path:cell C:line:col: ...`, the line counted within cell C."""
    return "".join(
        f"{f.path}:{f.place}: {f.code}{' [*]' if f.fixable else ''} {f.message}\n" for f in findings
    )


def summary(findings: Sequence[Finding]) -> str:
    """The last line, always in one shape for scripts to read, `Found N findings (M
    fixable).`, where M counts the `[*]` lines; before it, when some of those need
    `--unsafe-fixes`, a line that says how many."""
    fixable = sum(f.fixable for f in findings)
    unsafe = sum(f.fixable and f.fix == "unsafe" for f in findings)
    hint = (f"{unsafe} of the fixable findings {'needs' if unsafe == 1 else 'need'} `--fix --unsafe-fixes`.\n"
            if unsafe else "")
    return f"{hint}Found {len(findings)} findings ({fixable} fixable).\n"


def text(findings: Sequence[Finding]) -> str:
    return finding_lines(findings) + summary(findings)


def as_json(findings: Sequence[Finding]) -> str:
    return json.dumps([f.to_dict() for f in findings], indent=2) + "\n"


def github(findings: Sequence[Finding]) -> str:
    """GitHub Actions workflow commands, `title=CODE::message`: `::error` for errors,
    `::warning` for warnings and info (what the interface promises: a problem matcher
    may know only those two). A notebook's finding is annotated on the file, with
    no line (a line of its cell is no line of the JSON file GitHub shows), its
    place in the notebook leading the message."""
    out = []
    for f in findings:
        level = "error" if f.severity == "error" else "warning"
        message = _escape_data(placed_message(f))
        if f.cell is not None:
            out.append(f"::{level} file={_escape_property(f.path)},title={f.code}::{message}")
            continue
        out.append(
            f"::{level} file={_escape_property(f.path)},line={f.line},col={f.column},"
            f"endLine={f.end_line},endColumn={f.end_column},title={f.code}::{message}"
        )
    return "\n".join(out) + ("\n" if out else "")


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def sarif(findings: Sequence[Finding]) -> str:
    from trainlint.sarif import sarif as render

    return render(findings)


def gitlab(findings: Sequence[Finding]) -> str:
    from trainlint.ci_reports import gitlab as render

    return render(findings)


def junit(findings: Sequence[Finding]) -> str:
    from trainlint.ci_reports import junit as render

    return render(findings)


def _counts(findings: Sequence[Finding]) -> list[tuple[str, str, int, bool]]:
    """(code, name, count, fixable), the most frequent first."""
    counts = Counter((f.code, f.name) for f in findings)
    fixable = Counter(f.code for f in findings if f.fixable)
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [(code, name, count, bool(fixable[code])) for (code, name), count in ordered]


def statistics(findings: Sequence[Finding]) -> str:
    lines = [
        f"{count:>5}  {code}  {'[*]' if fixable else '   '} {name}"
        for code, name, count, fixable in _counts(findings)
    ]
    return "\n".join(lines) + ("\n" if lines else "")


def statistics_json(findings: Sequence[Finding]) -> str:
    rows = [
        {"code": code, "name": name, "count": count, "fixable": fixable}
        for code, name, count, fixable in _counts(findings)
    ]
    return json.dumps(rows, indent=2) + "\n"


FORMATS: dict[str, Reporter] = {
    "text": text,
    "json": as_json,
    "sarif": sarif,
    "github": github,
    "gitlab": gitlab,
    "junit": junit,
}
