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
from typing import TYPE_CHECKING, Iterator, Mapping, Sequence

from trainlint.cache import ResultCache, content_hash
from trainlint.config import Config, Selection, codes_for_file
from trainlint.finding import Finding
from trainlint.project import FileFacts, Project, ProjectView, inputs_digest, project_root
from trainlint.source import encoding_to_write
from trainlint.timing import Timer

if TYPE_CHECKING:
    from trainlint.crashes import RuleCrash
    from trainlint.engine import FileOutcome

UNREADABLE = "TL000"
_SERIAL_THRESHOLD = 4  # below this many files to analyse, a pool costs more than it saves


@dataclass
class RunOptions:
    fix: str | None = None  # None, "safe" or "unsafe"
    diff: bool = False  # show fixes as a diff instead of writing them
    jobs: int = 0  # 0: one per CPU
    cache_dir: Path | None = None  # None: no cache
    timings: bool = False  # measure where each analysed file's time goes


@dataclass
class RunResult:
    findings: list[Finding] = field(default_factory=list)
    diffs: list[str] = field(default_factory=list)
    fixed: dict[str, list[str]] = field(default_factory=dict)  # path: the rule of each fix (written or diffed)
    fixed_files: int = 0  # files written
    errors: list[str] = field(default_factory=list)
    analysed: int = 0  # files linted in this run
    from_cache: int = 0  # files whose findings came from the cache
    timings: dict[str, dict[str, float]] = field(default_factory=dict)  # path: CPU seconds per label (both passes)

    @property
    def fixes_applied(self) -> int:
        return sum(len(codes) for codes in self.fixed.values())


@dataclass
class _Task:
    path: str
    codes: tuple[str, ...]
    digest: str | None  # of the bytes the cache key was made from
    key: str | None
    view: ProjectView = ProjectView(summarize=True)
    inputs: str = ""  # digest of `view.external`


@dataclass
class _Analysed:
    outcome: FileOutcome
    digest: str  # of the bytes the worker read and linted


class _CachedFacts:
    """A file's facts as the cache stores them, read only when needed."""

    def __init__(self, stored: Mapping[str, object] | None) -> None:
        self.stored = stored
        self._facts: FileFacts | None = None

    def get(self) -> FileFacts | None:
        if self._facts is None and self.stored:
            self._facts = FileFacts.from_json(self.stored)
        return self._facts


@dataclass
class _Known:
    """A file's findings and facts, and what they were computed with."""

    task: _Task
    findings: list[Finding]
    source: FileFacts | _CachedFacts | None
    inputs: str
    crashes: list[RuleCrash] = field(default_factory=list)  # of the rules that raised on it

    @property
    def facts(self) -> FileFacts | None:
        return self.source.get() if isinstance(self.source, _CachedFacts) else self.source

    @property
    def has_facts(self) -> bool:
        return bool(self.source.stored) if isinstance(self.source, _CachedFacts) else self.source is not None


def run(files: Sequence[str], selection: Selection, config: Config, options: RunOptions) -> RunResult:
    """Lint `files` in two passes: every file that is not cached, then the
    files whose calls into other modules of the project now mean something
    else than when their findings were computed (see `trainlint.project`)."""
    result = RunResult()
    cache = ResultCache(options.cache_dir) if options.cache_dir is not None else None
    known: dict[str, _Known] = {}
    tasks: list[_Task] = []
    live_keys: set[str] = set()
    for path in files:
        codes = codes_for_file(Path(path), selection, config)
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
                task = _Task(path, codes, digest, key)
                known[path] = _Known(task, cached, _CachedFacts(cache.facts(key)), cache.inputs(key))
                continue
        tasks.append(_Task(path, codes, digest, key))
    cached_paths = set(known)
    analysed: set[str] = set()
    previous = cache.facts_by_path() if cache is not None else {}
    for task, outcome in _analyse_all(tasks, options):
        known[task.path] = _finish(task, outcome, None, cache, live_keys, options, result)
        analysed.add(task.path)
    members = project_members(known)
    if cache is None or _project_changed(known, analysed, previous, members, cache):
        project = Project(project_root(files, config.source.parent if config.source else None), _facts_of(known))
        for task, outcome in _analyse_all(list(_dependents(known, project)), options):
            known[task.path] = _finish(task, outcome, known[task.path].facts, cache, live_keys, options, result)
            analysed.add(task.path)
    if cache is not None:
        cache.set_members(members)
        cache.prune(live_keys)
        cache.save()
    for path, entry in sorted(known.items()):
        result.findings.extend(entry.findings)
        result.errors.extend(crash.describe(path) for crash in entry.crashes)
    result.analysed = len(analysed)
    result.from_cache = len(cached_paths - analysed)
    result.findings.sort()
    return result


def _facts_of(known: dict[str, _Known]) -> dict[str, FileFacts]:
    return {path: entry.facts for path, entry in known.items() if entry.facts is not None}


def project_members(known: dict[str, _Known]) -> str:
    """Identifies which files of the run have summaries."""
    return content_hash("\0".join(sorted(os.path.abspath(p) for p, e in known.items() if e.has_facts)).encode())


def _project_changed(
    known: dict[str, _Known],
    analysed: set[str],
    previous: Mapping[str, object],
    members: str,
    cache: ResultCache,
) -> bool:
    """Whether what any file calls may do something else than when the
    cached findings were computed: a file's summaries changed, or files with
    summaries came or went. When not, every cached digest still holds and
    the project is not worked out at all (a warm run, a comment edited)."""
    if members != cache.members:
        return True
    for path in analysed:
        facts = known[path].facts
        if (facts.to_json() if facts is not None else None) != previous.get(os.path.abspath(path)):
            return True
    return False


def _dependents(known: dict[str, _Known], project: Project) -> Iterator[_Task]:
    """Files to lint again: what the functions they call do is not what
    their findings were computed with."""
    for path, entry in known.items():
        inputs = project.inputs(path) if entry.facts is not None and entry.facts.calls else {}
        digest = inputs_digest(inputs)
        if digest != entry.inputs:
            task = entry.task
            yield _Task(path, task.codes, task.digest, task.key, ProjectView(inputs), digest)


def _finish(
    task: _Task,
    analysed: _Analysed,
    facts: FileFacts | None,
    cache: ResultCache | None,
    live_keys: set[str],
    options: RunOptions,
    result: RunResult,
) -> _Known:
    """Apply the fixes of one analysis and remember its results; `facts` are
    those of the file when this analysis was not asked for them."""
    outcome = analysed.outcome
    facts = outcome.facts or facts
    spent = result.timings.setdefault(task.path, {}) if outcome.timings else {}
    for label, seconds in outcome.timings.items():
        spent[label] = spent.get(label, 0.0) + seconds
    written = _apply(task, analysed, options, result) if outcome.fixed_source is not None else None
    if cache is not None:
        _remember(cache, task, analysed, written, facts, live_keys)
    return _Known(task, outcome.findings, facts, task.inputs, outcome.crashes)


def _needs_fixing(findings: Sequence[Finding], fix: str | None) -> bool:
    """Whether `--fix` / `--diff` would change the file these findings describe."""
    return fix is not None and any(f.fix == "safe" or (f.fix == "unsafe" and fix == "unsafe") for f in findings)


def _remember(
    cache: ResultCache,
    task: _Task,
    analysed: _Analysed,
    written: str | None,
    facts: FileFacts | None,
    live_keys: set[str],
) -> None:
    """Cache findings under the digest of the content they describe: the file
    as read when nothing was fixed, the file as written after `--fix`. After
    `--diff` they describe no file on disk and are not kept."""
    if task.key is None or analysed.digest != task.digest:
        return  # a file that changed after it was hashed is linted but not cached
    if analysed.outcome.crashes:
        return  # findings are missing: the next run must try, and report the crash, again
    stored = facts.to_json() if facts is not None else None
    if analysed.outcome.fixed_source is None:
        cache.put(task.key, analysed.outcome.findings, stored, task.inputs)
    elif written is not None:
        key = cache.key(task.path, written, task.codes)
        live_keys.discard(task.key)
        live_keys.add(key)
        cache.put(key, analysed.outcome.findings, stored, task.inputs)


def _analyse_all(tasks: list[_Task], options: RunOptions) -> Iterator[tuple[_Task, _Analysed]]:
    jobs = options.jobs or os.cpu_count() or 1
    if jobs <= 1 or len(tasks) < _SERIAL_THRESHOLD:
        for task in tasks:
            yield task, _analyse(task.path, task.codes, options.fix, task.view, options.timings)
        return
    from trainlint.registry import all_rules

    all_rules()  # import the rules once, before the workers are forked
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    # biggest files first, so that one huge file does not finish last alone
    order = sorted(range(len(tasks)), key=lambda i: -_size(tasks[i].path))
    with ProcessPoolExecutor(max_workers=min(jobs, len(tasks)), mp_context=context) as pool:
        futures = {
            i: pool.submit(_analyse, tasks[i].path, tasks[i].codes, options.fix, tasks[i].view, options.timings)
            for i in order
        }
        for i in range(len(tasks)):
            yield tasks[i], futures[i].result()


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _analyse(path: str, codes: tuple[str, ...], fix: str | None, view: ProjectView, timed: bool = False) -> _Analysed:
    from trainlint import engine

    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return _Analysed(engine.FileOutcome(_unreadable(path, exc, codes)), "")
    return _Analysed(analyse_bytes(path, data, codes, fix, view, Timer() if timed else None), content_hash(data))


def analyse_bytes(
    path: str,
    data: bytes,
    codes: Sequence[str],
    fix: str | None,
    view: ProjectView = ProjectView(),
    timer: Timer | None = None,
) -> FileOutcome:
    """Lint `data` as the file `path` with the rules `codes`; an internal error
    is reported as a finding of this file and a crash, never raised."""
    from trainlint import engine
    from trainlint.crashes import RuleCrash
    from trainlint.registry import by_code

    rules = by_code()
    try:
        return engine.lint_bytes(path, data, [rules[c] for c in codes], fix, view, timer)
    except Exception as exc:  # noqa: BLE001 - one bad file must not stop the run
        rule = rules.get(UNREADABLE)
        message = f"internal error while linting this file ({type(exc).__name__}: {exc}); please report it"
        findings = [] if rule is None else [Finding(path, 1, 1, 1, 1, rule.code, rule.name, rule.severity, message)]
        return engine.FileOutcome(findings, crashes=[RuleCrash.of(None, "lint", exc)])


def _apply(task: _Task, analysed: _Analysed, options: RunOptions, result: RunResult) -> str | None:
    """Write (or, with --diff, show) the fixed text; the digest of what was
    written, None when nothing was."""
    from trainlint.fixes import write_atomic

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
    encoding = encoding_to_write(data, outcome.encoding)
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
    from trainlint.registry import by_code

    rule = by_code().get(UNREADABLE)
    if rule is None or UNREADABLE not in codes:
        return []
    reason = exc.strerror or str(exc)
    return [Finding(path, 1, 1, 1, 1, rule.code, rule.name, rule.severity, f"cannot read file: {reason}")]
