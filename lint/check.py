"""What `trainlint check` does with its options: settings, discovery, the
run, and what is printed where. `trainlint.cli` only declares the options."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import click

from trainlint import timing
from trainlint.cache import CACHE_DIR
from trainlint.check_output import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, error, fail, note, report, warn
from trainlint.config import (
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
from trainlint.discovery import Discovery, discover
from trainlint.finding import NOQA_FIXES
from trainlint.imports import imported_files
from trainlint.project import project_root
from trainlint.runner import RunOptions, RunResult, run, unified_diff
from trainlint.stdin import UNNAMED, fixed_bytes, lint_stdin



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
    timings: bool
    exclude: tuple[str, ...]
    extend_exclude: tuple[str, ...]
    extend_include: tuple[str, ...]
    per_file_ignores: tuple[str, ...]
    extend_per_file_ignores: tuple[str, ...]
    respect_gitignore: bool | None
    quiet: bool
    verbose: bool
    jobs: int
    no_cache: bool
    config_path: str | None
    stdin_filename: str | None
    add_noqa: bool

    @property
    def reads_stdin(self) -> bool:
        return self.paths == (UNNAMED,) or (not self.paths and self.stdin_filename is not None)

    @property
    def report_to_stderr(self) -> bool:
        """Standard input with --fix: the fixed code takes stdout, the report stderr."""
        return self.reads_stdin and self.fix and not self.diff

    @property
    def stderr_for_programs(self) -> bool:
        """The report on stderr is for a program to read (`--format json`): no
        message goes there beside it."""
        return self.report_to_stderr and self.output_file is None and self.output_format != "text"

    @property
    def fix_mode(self) -> str | None:
        if self.add_noqa:
            return NOQA_FIXES  # unused codes go before codes are added: the baseline lints clean
        return ("unsafe" if self.unsafe_fixes else "safe") if (self.fix or self.diff) else None


@dataclass
class Settings:
    config: Config
    selection: Selection


def _imported_context(files: list[str], named: Sequence[str], config: Config) -> list[str]:
    """The project's other files that `files` may import, when the paths `named`
    are not the whole project (the files a pre-commit hook passes, a subfolder;
    none are named for a group of files linted under a configuration of its own
    beside others under theirs): what their functions do is followed as in a run over the
    whole project, and only `files` are reported."""
    if not files:
        return []
    root = project_root([*files, *named], config.source.parent if config.source else None)
    if any(os.path.isdir(target) and Path(target).resolve() == root.resolve() for target in named):
        return []  # the whole project is linted already
    linted = {os.path.abspath(path) for path in files}
    others = [path for path in discover([str(root)], config).files if os.path.abspath(path) not in linted]
    if not others:
        return []
    here = os.getcwd()
    shown = [os.path.relpath(path) if os.path.abspath(path).startswith(here + os.sep) else path for path in others]
    return imported_files(files, shown, str(root))


def execute(request: CheckRequest) -> int:
    """Run the check; the exit status."""
    misuse = _misuse(request)
    if misuse is not None:
        return fail(misuse)
    try:
        settings = _settings(request)
    except ConfigError as exc:
        return fail(str(exc))
    if not (request.quiet or request.stderr_for_programs):
        for message in [*_ineffective(request), *settings.config.warnings]:
            warn(message)
    if request.reads_stdin:
        return _check_stdin(request, settings)
    started = time.perf_counter()
    targets = list(request.paths) or ["."]
    nearest = _Nearest(request, settings)
    try:
        found = discover(targets, settings.config, nearest.config_of)
    except ConfigError as exc:
        return fail(str(exc))
    for problem in found.errors:
        error(problem)
    if not found.files and not found.errors and not request.quiet:
        warn(_nothing_to_lint(found, targets, settings.config))
    groups = nearest.groups(found.files)
    result = RunResult()
    for group, files in groups:
        cache_dir = None if request.no_cache else group.config.root / CACHE_DIR
        # the paths named stand for the project when one configuration covers them all
        named = tuple(targets) if len(groups) == 1 else ()
        options = RunOptions(request.fix_mode, request.diff, request.jobs, cache_dir, request.timings, named=named)
        context = _imported_context(files, named, group.config)
        _merge(result, run(files, group.selection, group.config, options, context))
    result.findings.sort()
    for problem in result.errors:
        error(problem)
    if request.verbose:
        _verbose_summary(settings, found, result, time.perf_counter() - started)
    if request.timings:
        click.echo(timing.report(result.timings), nl=False, err=True)
    if request.add_noqa:
        return _baseline(request, result, failed=bool(found.errors or result.errors))
    try:
        report(request, result, linted=bool(found.files))
    except OSError as exc:
        return fail(f"cannot write {request.output_file}: {exc.strerror or exc}")
    if found.errors or result.errors:
        return EXIT_ERROR
    return _status(request, result)


def _misuse(request: CheckRequest) -> str | None:
    """What is wrong with a combination of options, if anything."""
    if UNNAMED in request.paths and len(request.paths) > 1:
        return "`-` (standard input) cannot be combined with other paths"
    if request.stdin_filename is not None and not request.reads_stdin:
        return "--stdin-filename names standard input: give `-` as the only path"
    if request.add_noqa and (request.fix or request.diff or request.reads_stdin):
        return "--add-noqa edits files on disk: it cannot be combined with --fix, --diff or standard input"
    if request.statistics and request.output_format not in ("text", "json"):
        return (f"--statistics prints a table (or a JSON array with --format json), not a {request.output_format} "
                "report: a tool reading that report could not")
    return None


def _ineffective(request: CheckRequest) -> list[str]:
    """Options that change nothing in this run: a user who typed them expects
    them to (`--unsafe-fixes` without `--fix` fixes nothing)."""
    if request.fix or request.diff:
        return []
    given = [option for option, on in (("--unsafe-fixes", request.unsafe_fixes), ("--show-fixes", request.show_fixes)) if on]
    return [f"{option} has no effect without --fix or --diff" for option in given]


def _settings(request: CheckRequest, config: Config | None = None) -> Settings:
    """The configuration (found from the paths given, unless it is `config`) with the
    command line's settings applied, and the rules it selects."""
    targets = [request.stdin_filename or "."] if request.reads_stdin else list(request.paths) or ["."]
    overrides = Overrides(
        exclude=_list(request.exclude) if request.exclude else None,
        extend_exclude=_list(request.extend_exclude),
        per_file_ignores=parse_per_file_ignores(request.per_file_ignores, "--per-file-ignores")
        if request.per_file_ignores
        else None,
        extend_per_file_ignores=parse_per_file_ignores(request.extend_per_file_ignores, "--extend-per-file-ignores"),
        respect_gitignore=request.respect_gitignore,
        extend_include=_list(request.extend_include),
    )
    config = with_overrides(config or _config(targets, request.config_path), overrides)
    select = _codes(request.select, "--select")
    selection = select_rules(
        select if request.select else config.select,
        [*config.extend_select, *_codes(request.extend_select, "--extend-select")],
        [*config.ignore, *_codes(request.ignore, "--ignore"), *_codes(request.extend_ignore, "--extend-ignore")],
    )
    if not selection.codes:  # `--select "$CODES"` with the variable unset, `select = []`
        raise ConfigError("the selection names no rule (select, extend-select and ignore leave none): "
                          "no rule would run, not even TL000 for files that do not parse")
    return Settings(config, selection)


def _check_stdin(request: CheckRequest, settings: Settings) -> int:
    """Lint standard input; with --fix the (fixed) code goes to stdout and
    the report to stderr, with --diff the diff goes to stdout."""
    data = click.get_binary_stream("stdin").read()
    path = request.stdin_filename or UNNAMED
    outcome = lint_stdin(data, path, settings.selection, settings.config, request.fix_mode)
    result = RunResult()
    if outcome is not None:
        result.findings = outcome.findings
        if outcome.fixed_source is not None:
            result.fixed[path] = outcome.fixed_codes
            original = data.decode(outcome.encoding, errors="replace")
            result.diffs.append(unified_diff(path, original, outcome.fixed_source))
        result.errors = [crash.describe(path) for crash in outcome.crashes]
    if request.report_to_stderr:
        click.get_binary_stream("stdout").write(fixed_bytes(data, outcome))
        result.fixed_files = len(result.fixed)
    for problem in result.errors:
        error(problem)
    try:
        report(request, result, linted=outcome is not None, to_stderr=request.report_to_stderr)
    except OSError as exc:
        return fail(f"cannot write {request.output_file}: {exc.strerror or exc}")
    return EXIT_ERROR if result.errors else _status(request, result)


def _baseline(request: CheckRequest, result: RunResult, failed: bool) -> int:
    """`--add-noqa`: mark every finding with a `# noqa` comment."""
    from trainlint.baseline import add_noqa  # writes through LibCST's helpers; a cached run needs none

    baseline = add_noqa(result.findings)
    for problem in baseline.errors:
        error(problem)
    for finding in baseline.left:
        where = finding.line if finding.cell is None else finding.place
        warn(f"{finding.path}:{where}: no `# noqa` added for {finding.code}: the line ends inside a string")
    if not request.quiet:
        cleaned = f"; removed unused codes from {result.fixes_applied} `# noqa` comment(s)" if result.fixes_applied else ""
        click.echo(f"Added {baseline.added} noqa code(s) to {baseline.files} file(s){cleaned}.", err=True)
    return EXIT_ERROR if failed or baseline.errors else EXIT_CLEAN


def _list(values: tuple[str, ...]) -> list[str]:
    """Repeated options add up; each may also be a comma-separated list."""
    return [item.strip() for value in values for item in value.split(",") if item.strip()]


def _codes(values: tuple[str, ...], option: str) -> list[str]:
    return (parse_code_list(",".join(values), option) or []) if values else []


class _Nearest:
    """The settings of each file: those of the configuration nearest to it (a
    subproject's own `pyproject.toml`), so that a file gets the same findings whatever
    else is linted with it; `--config` applies to every file."""

    def __init__(self, request: CheckRequest, settings: Settings) -> None:
        self.request = request
        self.settings = settings
        self._by_source: dict[Path | None, Settings] = {settings.config.source: settings}
        self._by_folder: dict[str, Settings] = {}

    def of_folder(self, folder: str) -> Settings:
        if self.request.config_path is not None:
            return self.settings
        found = self._by_folder.get(folder)
        if found is None:
            source = find_config(Path(folder))
            if source not in self._by_source:
                self._by_source[source] = _settings(self.request, load_config(source))
            found = self._by_folder[folder] = self._by_source[source]
        return found

    def config_of(self, folder: str) -> Config:
        return self.of_folder(folder).config

    def groups(self, files: list[str]) -> list[tuple[Settings, list[str]]]:
        """The files by the settings they are linted with, in order of first appearance."""
        grouped: dict[int, tuple[Settings, list[str]]] = {}
        for path in files:
            settings = self.of_folder(os.path.dirname(os.path.abspath(path)))
            grouped.setdefault(id(settings), (settings, []))[1].append(path)
        return list(grouped.values()) or [(self.settings, [])]


def _merge(into: RunResult, part: RunResult) -> None:
    into.findings.extend(part.findings)
    into.diffs.extend(part.diffs)
    into.fixed.update(part.fixed)
    into.fixed_files += part.fixed_files
    into.errors.extend(part.errors)
    into.analysed += part.analysed
    into.from_cache += part.from_cache
    into.timings.update(part.timings)


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
    if found.excluded_in_walk:
        return (f"every Python file under {', '.join(targets)} is excluded by the `exclude` / `extend-exclude` "
                f"settings{source}; nothing was linted")
    if found.notebooks_left:
        many = found.notebooks_left > 1
        count = f"{found.notebooks_left} notebook{'s' if many else ''}"
        return (f"no Python files found under {', '.join(targets)}; {count} (.ipynb) left out: "
                f"name {'them' if many else 'it'}, or "
                f"walk them with `extend-include = [\"*.ipynb\"]` or `--extend-include '*.ipynb'`")
    return f"no Python files found under {', '.join(targets)}"


def _status(request: CheckRequest, result: RunResult) -> int:
    if request.diff:
        return EXIT_FINDINGS if result.diffs else EXIT_CLEAN
    if request.exit_non_zero_on_fix and result.fixes_applied:
        return EXIT_FINDINGS
    return EXIT_FINDINGS if result.findings and not request.exit_zero else EXIT_CLEAN


def _verbose_summary(settings: Settings, found: Discovery, result: RunResult, seconds: float) -> None:
    source = settings.config.source or "none (defaults)"
    note(f"configuration: {source}")
    note(f"rules: {', '.join(settings.selection.codes)}")
    note(f"{len(found.files)} file(s): {result.analysed} linted, {result.from_cache} from the cache, "
          f"in {seconds:.2f} s")
