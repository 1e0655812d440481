"""What `trainlint check` does with its options: settings, discovery, the
run, and what is printed where. `lint.cli` only declares the options."""

from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import click

from lint import reporters
from lint.cache import CACHE_DIR
from lint.config import (
    Config,
    ConfigError,
    Overrides,
    Selection,
    find_config,
    load_config,
    parse_code_list,
    parse_per_file_ignores,
    select_rules,
    with_overrides,
)
from lint.discovery import Discovery, discover
from lint.manifest import manifest
from lint.runner import RunOptions, RunResult, run

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


@dataclass
class CheckRequest:
    """The options of `trainlint check`, as click parsed them."""

    paths: tuple[str, ...]
    select: tuple[str, ...]
    ignore: tuple[str, ...]
    extend_select: tuple[str, ...]
    extend_ignore: tuple[str, ...]
    output_format: str
    output_file: str | None
    fix: bool
    unsafe_fixes: bool
    diff: bool
    show_fixes: bool
    exit_zero: bool
    exit_non_zero_on_fix: bool
    statistics: bool
    exclude: tuple[str, ...]
    extend_exclude: tuple[str, ...]
    per_file_ignores: tuple[str, ...]
    extend_per_file_ignores: tuple[str, ...]
    quiet: bool
    verbose: bool
    jobs: int
    no_cache: bool
    config_path: str | None

    @property
    def fix_mode(self) -> str | None:
        return ("unsafe" if self.unsafe_fixes else "safe") if (self.fix or self.diff) else None


@dataclass
class Settings:
    config: Config
    selection: Selection


def execute(request: CheckRequest) -> int:
    """Run the check; the exit status."""
    try:
        settings = _settings(request)
    except ConfigError as exc:
        return fail(str(exc))
    started = time.perf_counter()
    targets = list(request.paths) or ["."]
    found = discover(targets, settings.config)
    for error in found.errors:
        _error(error)
    if not found.files and not found.errors and not request.quiet:
        _warn(_nothing_to_lint(found, targets, settings.config))
    cache_dir = None if request.no_cache else settings.config.root / CACHE_DIR
    options = RunOptions(request.fix_mode, request.diff, request.jobs, cache_dir)
    result = run(found.files, settings.selection, settings.config, options)
    for error in result.errors:
        _error(error)
    if request.verbose:
        _verbose_summary(settings, found, result, time.perf_counter() - started)
    try:
        _report(request, found, result)
    except OSError as exc:
        return fail(f"cannot write {request.output_file}: {exc.strerror or exc}")
    if found.errors or result.errors:
        return EXIT_ERROR
    return _status(request, result)


def _settings(request: CheckRequest) -> Settings:
    targets = list(request.paths) or ["."]
    overrides = Overrides(
        exclude=_list(request.exclude) if request.exclude else None,
        extend_exclude=_list(request.extend_exclude),
        per_file_ignores=parse_per_file_ignores(request.per_file_ignores, "--per-file-ignores")
        if request.per_file_ignores
        else None,
        extend_per_file_ignores=parse_per_file_ignores(request.extend_per_file_ignores, "--extend-per-file-ignores"),
    )
    config = with_overrides(_config(targets, request.config_path), overrides)
    select = _codes(request.select, "--select")
    selection = select_rules(
        select if request.select else config.select,
        [*config.extend_select, *_codes(request.extend_select, "--extend-select")],
        [*config.ignore, *_codes(request.ignore, "--ignore"), *_codes(request.extend_ignore, "--extend-ignore")],
    )
    return Settings(config, selection)


def _list(values: tuple[str, ...]) -> list[str]:
    """Repeated options add up; each may also be a comma-separated list."""
    return [item.strip() for value in values for item in value.split(",") if item.strip()]


def _codes(values: tuple[str, ...], option: str) -> list[str]:
    return (parse_code_list(",".join(values), option) or []) if values else []


def _config(targets: list[str], config_path: str | None) -> Config:
    if config_path is not None:
        return load_config(Path(config_path), explicit=True)
    anchor = Path(os.path.commonpath([os.path.abspath(t) for t in targets]))
    while not anchor.exists() and anchor != anchor.parent:
        anchor = anchor.parent
    found = find_config(anchor)
    return load_config(found, fallback_root=Path.cwd())


def _nothing_to_lint(found: Discovery, targets: list[str], config: Config) -> str:
    source = f" in {config.source}" if config.source is not None else ""
    if found.excluded and len(found.excluded) == len(targets):
        named = ", ".join(found.excluded)
        return f"every path given is excluded by the `exclude` / `extend-exclude` settings{source} ({named}); nothing was linted"
    return f"no Python files found under {', '.join(targets)}"


def _report(request: CheckRequest, found: Discovery, result: RunResult) -> None:
    to_stdout = request.output_file is None and request.output_format == "text"
    with _Output(request.output_file) as out:
        if request.diff:
            out.write("".join(result.diffs))
        elif request.statistics:
            render = reporters.statistics_json if request.output_format == "json" else reporters.statistics
            out.write(render(result.findings))
        elif request.quiet and request.output_format == "text":
            out.write(reporters.finding_lines(result.findings))
        elif request.output_format != "text" or result.findings or found.files:
            out.write(reporters.FORMATS[request.output_format](result.findings))
    if request.quiet:
        return
    if request.show_fixes and result.fixed:
        click.echo(_fix_listing(result.fixed, "Would fix" if request.diff else "Fixed"), nl=False, err=not to_stdout)
    elif request.diff and result.fixes_applied:
        click.echo(f"Would fix {result.fixes_applied} finding(s).", err=True)
    elif request.fix and result.fixes_applied:
        message = f"Fixed {result.fixes_applied} finding(s) in {result.fixed_files} file(s)."
        click.echo(message, err=not to_stdout)


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


class _Output:
    """The report's destination: stdout, or the `--output-file`, written
    whole once the report is complete."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.parts: list[str] = []

    def __enter__(self) -> _Output:
        return self

    def write(self, text: str) -> None:
        self.parts.append(text)

    def __exit__(self, *exc: object) -> None:
        if exc[0] is not None:
            return
        text = "".join(self.parts)
        if self.path is None:
            click.echo(text, nl=False)
            return
        target = Path(self.path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _status(request: CheckRequest, result: RunResult) -> int:
    if request.diff:
        return EXIT_FINDINGS if result.diffs else EXIT_CLEAN
    if request.exit_non_zero_on_fix and result.fixes_applied:
        return EXIT_FINDINGS
    return EXIT_FINDINGS if result.findings and not request.exit_zero else EXIT_CLEAN


def _verbose_summary(settings: Settings, found: Discovery, result: RunResult, seconds: float) -> None:
    source = settings.config.source or "none (defaults)"
    _note(f"configuration: {source}")
    _note(f"rules: {', '.join(settings.selection.codes)}")
    _note(f"{len(found.files)} file(s): {result.analysed} linted, {result.from_cache} from the cache, "
          f"in {seconds:.2f} s")


def _note(message: str) -> None:
    click.echo(f"trainlint: {message}", err=True)


def _warn(message: str) -> None:
    click.echo(f"trainlint: warning: {message}", err=True)


def _error(message: str) -> None:
    click.echo(f"trainlint: error: {message}", err=True)


def fail(message: str) -> int:
    _error(message)
    return EXIT_ERROR
