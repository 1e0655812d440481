"""Linting many files: cache lookups, parallel workers, writing fixes.

Workers are sent paths and read the files themselves (no file contents are
pickled between processes). The engine, LibCST and the rules are imported
only when some file has to be analysed: a run served from the cache needs
none of them."""

from __future__ import annotations

import difflib
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Sequence

from lint.cache import ResultCache, content_hash
from lint.config import Config, Selection, matches_glob
from lint.finding import Finding

if TYPE_CHECKING:
    from lint.engine import FileOutcome

UNREADABLE = "TL000"
_SERIAL_THRESHOLD = 4  # below this many files to analyse, a pool costs more than it saves


@dataclass
class RunOptions:
    fix: str | None = None  # None, "safe" or "unsafe"
    diff: bool = False  # show fixes as a diff instead of writing them
    jobs: int = 0  # 0: one per CPU
    cache_dir: Path | None = None  # None: no cache


@dataclass
class RunResult:
    findings: list[Finding] = field(default_factory=list)
    diffs: list[str] = field(default_factory=list)
    fixed: dict[str, list[str]] = field(default_factory=dict)  # path: the rule of each fix (written or diffed)
    fixed_files: int = 0  # files written
    errors: list[str] = field(default_factory=list)
    analysed: int = 0  # files linted in this run
    from_cache: int = 0  # files whose findings came from the cache

    @property
    def fixes_applied(self) -> int:
        return sum(len(codes) for codes in self.fixed.values())


@dataclass
class _Task:
    path: str
    codes: tuple[str, ...]
    digest: str | None  # of the bytes the cache key was made from
    key: str | None


@dataclass
class _Analysed:
    outcome: FileOutcome
    digest: str  # of the bytes the worker read and linted


def run(files: Sequence[str], selection: Selection, config: Config, options: RunOptions) -> RunResult:
    result = RunResult()
    cache = ResultCache(options.cache_dir) if options.cache_dir is not None else None
    tasks: list[_Task] = []
    live_keys: set[str] = set()
    for path in files:
        codes = _codes_for(path, selection, config)
        key = digest = None
        if cache is not None:
            try:
                digest = content_hash(Path(path).read_bytes())
            except OSError as exc:
                result.findings.extend(_unreadable(path, exc, codes))
                continue
            key = cache.key(path, digest, codes)
            live_keys.add(key)
            cached = cache.get(key, path)
            if cached is not None and not _needs_fixing(cached, options.fix):
                result.findings.extend(cached)
                result.from_cache += 1
                continue
        tasks.append(_Task(path, codes, digest, key))
    for task, analysed in _analyse_all(tasks, options):
        outcome = analysed.outcome
        result.findings.extend(outcome.findings)
        result.analysed += 1
        written = _apply(task, analysed, options, result) if outcome.fixed_source is not None else None
        if cache is not None:
            _remember(cache, task, analysed, written, live_keys)
    if cache is not None:
        cache.prune(live_keys)
        cache.save()
    result.findings.sort()
    return result


def _needs_fixing(findings: Sequence[Finding], fix: str | None) -> bool:
    """Whether `--fix` / `--diff` would change the file these findings describe."""
    return fix is not None and any(f.fix == "safe" or (f.fix == "unsafe" and fix == "unsafe") for f in findings)


def _remember(cache: ResultCache, task: _Task, analysed: _Analysed, written: str | None, live_keys: set[str]) -> None:
    """Cache findings under the digest of the content they describe: the file
    as read when nothing was fixed, the file as written after `--fix`. After
    `--diff` they describe no file on disk and are not kept."""
    if task.key is None or analysed.digest != task.digest:
        return  # a file that changed after it was hashed is linted but not cached
    if analysed.outcome.fixed_source is None:
        cache.put(task.key, analysed.outcome.findings)
    elif written is not None:
        key = cache.key(task.path, written, task.codes)
        live_keys.discard(task.key)
        live_keys.add(key)
        cache.put(key, analysed.outcome.findings)


def _codes_for(path: str, selection: Selection, config: Config) -> tuple[str, ...]:
    ignored: list[str] = []
    for glob, codes in config.per_file_ignores.items():
        if matches_glob(Path(path), config.root, [glob]):
            ignored.extend(codes)
    return (selection.without(ignored) if ignored else selection).codes


def _analyse_all(tasks: list[_Task], options: RunOptions) -> Iterator[tuple[_Task, _Analysed]]:
    jobs = options.jobs or os.cpu_count() or 1
    if jobs <= 1 or len(tasks) < _SERIAL_THRESHOLD:
        for task in tasks:
            yield task, _analyse(task.path, task.codes, options.fix)
        return
    from lint.registry import all_rules

    all_rules()  # import the rules once, before the workers are forked
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    # biggest files first, so that one huge file does not finish last alone
    order = sorted(range(len(tasks)), key=lambda i: -_size(tasks[i].path))
    with ProcessPoolExecutor(max_workers=min(jobs, len(tasks)), mp_context=context) as pool:
        futures = {i: pool.submit(_analyse, tasks[i].path, tasks[i].codes, options.fix) for i in order}
        for i in range(len(tasks)):
            yield tasks[i], futures[i].result()


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _analyse(path: str, codes: tuple[str, ...], fix: str | None) -> _Analysed:
    from lint import engine
    from lint.registry import by_code

    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return _Analysed(engine.FileOutcome(_unreadable(path, exc, codes)), "")
    rules = by_code()
    try:
        outcome = engine.lint_bytes(path, data, [rules[c] for c in codes], fix)
    except Exception as exc:  # noqa: BLE001 - one bad file must not stop the run
        rule = rules.get(UNREADABLE)
        message = f"internal error while linting this file ({type(exc).__name__}: {exc}); please report it"
        findings = [] if rule is None else [Finding(path, 1, 1, 1, 1, rule.code, rule.name, rule.severity, message)]
        outcome = engine.FileOutcome(findings)
    return _Analysed(outcome, content_hash(data))


def _apply(task: _Task, analysed: _Analysed, options: RunOptions, result: RunResult) -> str | None:
    """Write (or, with --diff, show) the fixed text; the digest of what was
    written, None when nothing was."""
    from lint.fixes import write_atomic

    outcome = analysed.outcome
    assert outcome.fixed_source is not None
    try:
        data = Path(task.path).read_bytes()
    except OSError as exc:
        result.errors.append(f"{task.path}: cannot read it again to fix it: {exc.strerror or exc}")
        return None
    if content_hash(data) != analysed.digest:
        result.errors.append(f"{task.path}: changed while it was being linted; not fixed")
        return None
    if options.diff:
        original = data.decode(outcome.encoding, errors="replace")
        result.diffs.append(unified_diff(task.path, original, outcome.fixed_source))
        result.fixed[task.path] = outcome.fixed_codes
        return None
    encoding = "utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else outcome.encoding
    try:
        write_atomic(task.path, outcome.fixed_source, encoding=encoding)
    except OSError as exc:
        result.errors.append(f"{task.path}: cannot write fixes: {exc.strerror or exc}")
        return None
    result.fixed_files += 1
    result.fixed[task.path] = outcome.fixed_codes
    return content_hash(outcome.fixed_source.encode(encoding))


def unified_diff(path: str, original: str, fixed: str) -> str:
    return "".join(
        difflib.unified_diff(
            original.splitlines(keepends=True),
            fixed.splitlines(keepends=True),
            fromfile=f"a/{path}",
            tofile=f"b/{path}",
        )
    )


def _unreadable(path: str, exc: OSError, codes: tuple[str, ...]) -> list[Finding]:
    from lint.registry import by_code

    rule = by_code().get(UNREADABLE)
    if rule is None or UNREADABLE not in codes:
        return []
    reason = exc.strerror or str(exc)
    return [Finding(path, 1, 1, 1, 1, rule.code, rule.name, rule.severity, f"cannot read file: {reason}")]
