"""Linting many files: cache lookups, parallel workers, writing fixes.

Workers are sent paths and read the files themselves (no file contents are
pickled between processes). The engine, LibCST and the rules are imported
only when some file has to be analysed: a run served from the cache needs
none of them."""

from __future__ import annotations

import difflib
import os
import sys
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Sequence

from trainlint.cache import Entry, ResultCache, Stat, content_hash, file_stat, without_path
from trainlint.config import Config, Selection, codes_for_file
from trainlint.finding import NOQA_FIXES, UNUSED_NOQA, Finding
from trainlint.project import FileFacts, ProjectView, project_root
from trainlint.project_pass import Known, ProjectPass, Task, facts_digest
from trainlint.project_store import ProjectStore
from trainlint.source import encoding_to_write
from trainlint.timing import Timer

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

    from trainlint.engine import FileOutcome

UNREADABLE = "TL000"
_SERIAL_THRESHOLD = 4  # below this many files to analyse, a pool costs more than it saves
# characters of source whose parsed trees the run may keep for a second
# analysis, over all its processes (a tree takes ~40x its text: ~600 MB)
_TREE_BUDGET = 16_000_000


@dataclass
class RunOptions:
    fix: str | None = None  # None, "safe", "unsafe" or NOQA_FIXES
    diff: bool = False  # show fixes as a diff instead of writing them
    jobs: int = 0  # 0: one per CPU
    cache_dir: Path | None = None  # None: no cache
    timings: bool = False  # measure where each analysed file's time goes
    only: frozenset[str] | None = None  # the files to report and fix (the others are context)
    named: tuple[str, ...] = ()  # the paths the command line named: the project is at least their folder


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
class _Analysed:
    outcome: FileOutcome
    digest: str  # of the bytes the worker read and linted


def run(files: Sequence[str], selection: Selection, config: Config, options: RunOptions,
        context: Sequence[str] = ()) -> RunResult:
    """Lint `files` in two passes: every file that is not cached, then the
    files whose calls into other modules of the project now mean something
    else than when their findings were computed (see `trainlint.project_pass`).
    `context`: other files of the project that `files` may import, analysed
    for what their functions do (and cached), but neither reported nor fixed."""
    if context:
        wanted = set(files)
        result = run([*files, *(path for path in context if path not in wanted)], selection, config,
                     replace(options, only=frozenset(wanted)))
        return result
    result = RunResult()
    index = ResultCache(options.cache_dir) if options.cache_dir is not None else None
    store = ProjectStore(index.project_dir) if index is not None else None
    known: dict[str, Known] = {}
    tasks = list(_look_up(files, selection, config, options, index, known, result))
    root = project_root([*files, *options.named], config.source.parent if config.source else None)
    last_members, stamp = (index.members, index.project) if index is not None else ("", "")
    project = ProjectPass(root, list(files), known, store, last_members, stamp)
    if known:
        tasks.extend(project.rejoined(tasks))
    cached_paths = set(known)
    if tasks:
        project.plan(tasks)
        project.speculate(tasks)
    # fixes are applied once both passes are done, from each file's last analysis: the
    # first may have been made without what the project's other files do
    fixes: dict[str, tuple[Task, _Analysed]] = {}
    with _Workers(options) as workers:
        for task, outcome in workers.analyse(tasks):
            known[task.path] = _finish(task, outcome, None, result, fixes)
        analysed = {task.path for task in tasks}
        stale = list(project.stale([t.path for t in tasks], lambda paths: _facts_again(paths, known, workers)))
        relint = [replace(known[path].task, view=view, inputs=digest) for path, view, digest in stale]
        for task, outcome in workers.analyse(relint):
            known[task.path] = _finish(task, outcome, known[task.path], result, fixes)
            analysed.add(task.path)
    for path, (task, outcome) in fixes.items():
        if options.only is None or path in options.only:
            _apply_fixes(known[path], task, outcome, options, result)
    if index is not None and store is not None:
        _save(index, store, known, project)
    only = options.only
    for path, entry in sorted(known.items()):
        if only is None or path in only:
            result.findings.extend(entry.findings)
            result.errors.extend(crash.describe(path) for crash in entry.crashes)
    if only is not None:  # a context file that cannot be read is no finding of this run
        result.findings = [finding for finding in result.findings if finding.path in only]
    result.analysed = len(analysed if only is None else analysed & only)
    result.from_cache = len((cached_paths - analysed) if only is None else (cached_paths - analysed) & only)
    result.findings.sort()
    return result


def _look_up(
    files: Sequence[str],
    selection: Selection,
    config: Config,
    options: RunOptions,
    index: ResultCache | None,
    known: dict[str, Known],
    result: RunResult,
) -> Iterator[Task]:
    """The files to analyse; those whose findings the cache holds go to
    `known`. A file whose stat is as the cache saw it is not read."""
    for path in files:
        codes = codes_for_file(Path(path), selection, config) if config.per_file_ignores else selection.codes
        if index is None:
            yield Task(path, codes)
            continue
        try:
            stat = file_stat(path)  # before the bytes: a later change shows in the next stat
            digest = index.digest(path, stat) or content_hash(Path(path).read_bytes())
        except OSError as exc:
            result.findings.extend(_unreadable(path, exc, codes))
            continue
        previous = index.lookup(path)
        task = Task(path, codes, digest, stat, previous, member=previous is not None and previous.member)
        if previous is not None and previous.digest == digest and previous.codes == ",".join(codes):
            findings = previous.findings_of(path)
            if not _needs_fixing(findings, options.fix):
                known[path] = Known(task, findings, previous.facts, previous.inputs, stored=True)
                continue
        yield task


def _facts_again(paths: list[str], known: dict[str, Known], workers: _Workers) -> dict[str, FileFacts | None]:
    """Facts of files the project store lost, computed again (their findings are still those cached)."""
    tasks = [Task(path, known[path].task.codes, member=True) for path in paths]
    return {task.path: analysed.outcome.facts for task, analysed in workers.analyse(tasks)}


def _save(index: ResultCache, store: ProjectStore, known: dict[str, Known], project: ProjectPass) -> None:
    """Remember what this run found: the facts first, then the index that vouches for them."""
    for path, entry in known.items():
        task = entry.task
        if not entry.cacheable or task.digest is None or _as_stored(entry):
            continue
        if entry.facts is not None:  # computed in this run (facts loaded from the store stay there)
            store.put_facts(path, task.digest, entry.facts.to_json())
        findings = [without_path(f) for f in entry.findings]
        codes = ",".join(task.codes)
        index.put(path, Entry(task.digest, task.stat, codes, findings, entry.inputs, entry.facts_digest, entry.member))
    stamp = store.save(project.reads, index.project)
    index.set_project(project.members(), stamp)
    index.save()


def _as_stored(entry: Known) -> bool:
    """The index holds this entry as it is (same stat, no facts computed since)."""
    previous = entry.task.previous
    return entry.stored and entry.facts is None and previous is not None and entry.task.stat == previous.stat


def _finish(
    task: Task,
    analysed: _Analysed,
    before: Known | None,
    result: RunResult,
    fixes: dict[str, tuple[Task, _Analysed]],
) -> Known:
    """Remember the results of one analysis, and its fixes, which replace those of an
    earlier analysis of the file; `before`: what was known of the file when this
    analysis was not asked for its facts."""
    outcome = analysed.outcome
    facts = outcome.facts or (before.facts if before is not None else None)
    spent = result.timings.setdefault(task.path, {}) if outcome.timings else {}
    for label, seconds in outcome.timings.items():
        spent[label] = spent.get(label, 0.0) + seconds
    if outcome.fixed_source is not None:
        fixes[task.path] = (task, analysed)
    else:
        fixes.pop(task.path, None)
    digest = before.facts_digest if before is not None and outcome.facts is None else facts_digest(facts)
    known = Known(task, outcome.findings, digest, task.inputs, facts, outcome.crashes)
    known.cacheable = analysed.digest == task.digest and not outcome.crashes
    return known


def _apply_fixes(known: Known, task: Task, analysed: _Analysed, options: RunOptions, result: RunResult) -> None:
    """Write (or show) the fixes of a file's last analysis. Its findings describe the
    bytes they were computed from: the file as written after `--fix`; after `--diff`,
    no bytes on disk (so they are not cached). A fixed text that was not written
    (the file changed while it was linted, or cannot be written) leaves the file
    as it was read: the findings reported are that text's."""
    written = _apply(task, analysed, options, result)
    known.cacheable = known.cacheable and written is not None
    if written is not None:
        known.task = replace(task, digest=written, stat=_stat_or_none(task.path))
    elif not options.diff:
        known.findings = analysed.outcome.findings_as_read


def _stat_or_none(path: str) -> Stat | None:
    try:
        return file_stat(path)
    except OSError:
        return None


def _needs_fixing(findings: Sequence[Finding], fix: str | None) -> bool:
    """Whether `--fix` / `--diff` (or `--add-noqa`) would change the file these findings describe."""
    if fix == NOQA_FIXES:
        return any(f.code == UNUSED_NOQA and f.fixable for f in findings)
    return fix is not None and any(f.fix == "safe" or (f.fix == "unsafe" and fix == "unsafe") for f in findings)


class _Workers:
    """The processes that analyse files, kept for the whole run. A file
    analysed again once the project knows what its calls do goes back to the
    process that analysed it first: that process kept its parsed tree (see
    `ProjectView.keep_tree`). Files too few for a pool are analysed here, in
    this process (which then keeps the trees)."""

    _IN_FLIGHT = 2  # per process: the next file is queued before the current one ends

    def __init__(self, options: RunOptions) -> None:
        self.options = options
        self.jobs = options.jobs or os.cpu_count() or 1
        self._pools: list[ProcessPoolExecutor] = []
        self._home: dict[str, int] = {}  # path: the process that analysed it
        self._context: object = None  # how the processes start, and their share of the kept trees
        self._budget = 0

    def __enter__(self) -> _Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        for pool in self._pools:
            pool.shutdown(cancel_futures=True)
        engine = sys.modules.get("trainlint.engine")  # imported only if this process analysed something
        if engine is not None:
            engine.KEPT_TREES.clear()  # what this process kept serves this run only

    def analyse(self, tasks: list[Task]) -> Iterator[tuple[Task, _Analysed]]:
        """Each task with its analysis, in the order of `tasks`."""
        if not self._pools and (self.jobs <= 1 or len(tasks) < _SERIAL_THRESHOLD):
            for task in tasks:
                yield task, self._call(task)
            return
        self._start(tasks)
        yield from self._dispatch(tasks)

    def _call(self, task: Task) -> _Analysed:
        return _analyse(*self._arguments(task))

    def _arguments(self, task: Task) -> tuple[str, tuple[str, ...], str | None, ProjectView, bool]:
        return task.path, task.codes, self.options.fix, task.view, self.options.timings

    def _start(self, tasks: list[Task]) -> None:
        if self._pools:
            return
        import multiprocessing  # a run that analyses a file or two starts no pool: it needs none of this

        from trainlint.registry import rules_for

        rules_for({code for task in tasks for code in task.codes})  # imported once, before the workers are forked
        self._context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
        count = min(self.jobs, len(tasks))
        self._budget = _TREE_BUDGET // count  # the memory for kept trees is shared out, however many processes
        self._pools = [self._new_pool() for _ in range(count)]

    def _alone(self, task: Task) -> _Analysed:
        """`task` analysed in a process of its own; an error outcome if it dies there too."""
        from concurrent.futures.process import BrokenProcessPool

        pool = self._new_pool()
        try:
            return pool.submit(_analyse, *self._arguments(task)).result()
        except BrokenProcessPool as exc:
            return _worker_died(exc)
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    def _renew(self, worker: int, dead: ProcessPoolExecutor) -> None:
        """A new process in place of one that died (once per death)."""
        if self._pools[worker] is not dead:
            return
        dead.shutdown(wait=False, cancel_futures=True)
        self._pools[worker] = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        from concurrent.futures import ProcessPoolExecutor

        return ProcessPoolExecutor(max_workers=1, mp_context=self._context, initializer=_worker_setup,
                                   initargs=(self._budget,))

    def _dispatch(self, tasks: list[Task]) -> Iterator[tuple[Task, _Analysed]]:
        from concurrent.futures import FIRST_COMPLETED, Future, wait
        from concurrent.futures.process import BrokenProcessPool

        # biggest files first, so that one huge file does not finish last alone
        order = sorted(range(len(tasks)), key=lambda i: -_size(tasks[i].path))
        own: list[deque[int]] = [deque() for _ in self._pools]
        shared: deque[int] = deque()
        for i in order:
            home = self._home.get(tasks[i].path)
            (own[home] if home is not None and home < len(own) else shared).append(i)
        running: dict[Future[_Analysed], tuple[int, int, ProcessPoolExecutor]] = {}
        busy = [0] * len(self._pools)
        done: dict[int, _Analysed] = {}
        next_out = 0
        while next_out < len(tasks):
            for worker, pool in enumerate(self._pools):
                while busy[worker] < self._IN_FLIGHT:
                    i = _next_task(own, shared, worker)
                    if i is None:
                        break
                    task = tasks[i]
                    try:
                        future = pool.submit(_analyse, *self._arguments(task))
                    except BrokenProcessPool:
                        # it died under a file it held before this one was handed over: the
                        # futures it held say so below; this file goes to its replacement
                        self._renew(worker, pool)
                        pool = self._pools[worker]
                        future = pool.submit(_analyse, *self._arguments(task))
                    running[future] = (i, worker, pool)
                    busy[worker] += 1
                    self._home[task.path] = worker
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                i, worker, pool = running.pop(future)
                busy[worker] -= 1
                try:
                    done[i] = future.result()
                except BrokenProcessPool:
                    # the process died (killed for memory, a crash in C) under one of the files
                    # it held: each is analysed again alone, and the one it dies on is reported
                    self._renew(worker, pool)
                    done[i] = self._alone(tasks[i])
            while next_out in done:
                yield tasks[next_out], done.pop(next_out)
                next_out += 1


def _worker_died(exc: BaseException) -> _Analysed:
    from trainlint import engine
    from trainlint.crashes import RuleCrash

    crash = RuleCrash(None, "lint", f"the process analysing it died ({exc or type(exc).__name__}; "
                                    "out of memory?)")
    return _Analysed(engine.FileOutcome(crashes=[crash]), "")


def _worker_setup(tree_budget: int) -> None:
    from trainlint.engine import KEPT_TREES

    KEPT_TREES.limit = tree_budget
    KEPT_TREES.freeze = True


def _next_task(own: list[deque[int]], shared: deque[int], worker: int) -> int | None:
    """The next file for `worker`: one it analysed before, else the biggest
    one nobody did, else the smallest left to the busiest other worker (its
    tree is parsed again, rather than this worker waiting)."""
    if own[worker]:
        return own[worker].popleft()
    if shared:
        return shared.popleft()
    longest = max(own, key=len)
    return longest.pop() if longest else None


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
    from trainlint.registry import rules_for

    rules = rules_for([*codes, UNREADABLE])
    try:
        return engine.lint_bytes(path, data, [rules[c] for c in codes], fix, view, timer)
    except Exception as exc:  # noqa: BLE001 - one bad file must not stop the run
        rule = rules.get(UNREADABLE)
        message = f"internal error while linting this file ({type(exc).__name__}: {exc}); please report it"
        findings = [] if rule is None else [Finding(path, 1, 1, 1, 1, rule.code, rule.name, rule.severity, message)]
        return engine.FileOutcome(findings, crashes=[RuleCrash.of(None, "lint", exc)])


def _apply(task: Task, analysed: _Analysed, options: RunOptions, result: RunResult) -> str | None:
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
    fixed = _with_final_line_end(data.decode(outcome.encoding, errors="replace"), outcome.fixed_source)
    try:
        # through a symbolic link, the file it points to is fixed, and the link kept
        write_atomic(os.path.realpath(task.path), fixed, encoding=encoding)
    except OSError as exc:
        result.errors.append(f"{task.path}: cannot write fixes: {exc.strerror or exc}")
        return None
    result.fixed_files += 1
    result.fixed[task.path] = outcome.fixed_codes
    return content_hash(fixed.encode(encoding))


def _with_final_line_end(original: str, fixed: str) -> str:
    """`fixed`, ending with a line end when `original` did: LibCST renders a file of
    old-Mac line ends (a lone CR) without its last one."""
    for end in ("\r\n", "\r", "\n"):
        if original.endswith(end):
            return fixed if fixed.endswith(("\r", "\n")) else fixed + end
    return fixed


def unified_diff(path: str, original: str, fixed: str) -> str:
    """The diff as `git diff` and `patch` read it: a last line without a newline
    is followed by `\\ No newline at end of file` (not run into the next line); an
    absolute path is written as git writes one (`a/tmp/t.py`, not `a//tmp/t.py`)."""
    shown = path.lstrip("/")
    lines = difflib.unified_diff(
        original.splitlines(keepends=True),
        fixed.splitlines(keepends=True),
        fromfile=f"a/{shown}",
        tofile=f"b/{shown}",
    )
    return "".join(line if line.endswith("\n") else f"{line}\n\\ No newline at end of file\n" for line in lines)


def _unreadable(path: str, exc: OSError, codes: tuple[str, ...]) -> list[Finding]:
    from trainlint.registry import rules_for

    rule = rules_for([UNREADABLE]).get(UNREADABLE) if UNREADABLE in codes else None
    if rule is None:
        return []
    reason = exc.strerror or str(exc)
    return [Finding(path, 1, 1, 1, 1, rule.code, rule.name, rule.severity, f"cannot read file: {reason}")]
