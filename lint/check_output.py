"""What `trainlint check` prints, and where: the report (stdout, stderr or
the `--output-file`), messages about fixes, warnings and errors."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import click

from trainlint import reporters
from trainlint.manifest import manifest
from trainlint.runner import RunResult

if TYPE_CHECKING:
    from trainlint.check import CheckRequest

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def report(request: CheckRequest, result: RunResult, linted: bool, to_stderr: bool = False) -> None:
    """The report (to stdout, stderr or the output file) and the messages about
    fixes (beside a text report on the terminal, else on stderr): after `--fix`,
    what was fixed comes first, then what remains ("Fixed 1 finding(s)", then
    "Found 0 findings (0 fixable)."); a `--diff` ends with what it would fix.
    A report on stderr for programs (standard input, `--fix --format json`)
    is all that goes there."""
    if not request.quiet and not request.diff and not request.stderr_for_programs:
        _fix_messages(request, result, to_stderr)
    emit(_report_text(request, result, linted), request.output_file, to_stderr)
    if not request.quiet and request.diff:
        _fix_messages(request, result, to_stderr)


def _fix_messages(request: CheckRequest, result: RunResult, to_stderr: bool) -> None:
    to_stdout = request.output_file is None and request.output_format == "text" and not to_stderr
    if request.show_fixes and result.fixed:
        click.echo(_fix_listing(result.fixed, "Would fix" if request.diff else "Fixed"), nl=False, err=not to_stdout)
    elif request.diff and result.fixes_applied:
        click.echo(f"Would fix {result.fixes_applied} finding(s).", err=True)
    elif request.fix and result.fixes_applied:
        message = f"Fixed {result.fixes_applied} finding(s) in {result.fixed_files} file(s)."
        click.echo(message, err=not to_stdout)


def _report_text(request: CheckRequest, result: RunResult, linted: bool) -> str:
    if request.diff:
        return "".join(result.diffs)
    if request.statistics:
        render = reporters.statistics_json if request.output_format == "json" else reporters.statistics
        return render(result.findings)
    if request.quiet and request.output_format == "text":
        return reporters.finding_lines(result.findings)
    if request.output_format != "text" or result.findings or linted:
        return reporters.FORMATS[request.output_format](result.findings)
    return ""


def emit(text: str, path: str | None, to_stderr: bool = False) -> None:
    """Print `text`, or write it to the `--output-file` (its folder created)."""
    if path is None:
        click.echo(text, nl=False, err=to_stderr)
        return
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def _fix_listing(fixed: dict[str, list[str]], verb: str) -> str:
    """`--show-fixes`: what was fixed, per file and rule."""
    names = {rule.code: rule.name for rule in manifest().rules}
    total = sum(len(codes) for codes in fixed.values())
    lines = [f"{verb} {total} finding(s):"]
    for path in sorted(fixed):
        lines.append(f"- {path}:")
        for code, count in sorted(Counter(fixed[path]).items()):
            lines.append(f"    {count} × {code} ({names.get(code, '?')})")
    return "\n".join(lines) + "\n"


def note(message: str) -> None:
    click.echo(f"trainlint: {message}", err=True)


def warn(message: str) -> None:
    click.echo(f"trainlint: warning: {message}", err=True)


def error(message: str) -> None:
    click.echo(f"trainlint: error: {message}", err=True)


def fail(message: str) -> int:
    error(message)
    return EXIT_ERROR
