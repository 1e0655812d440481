"""Linting one file: decode, parse once, build the semantic model in one walk,
run every selected rule over it, resolve positions only when something was
found, apply fixes on request."""

from __future__ import annotations

import abc
import ast
import dataclasses
import gc
import inspect
import re
import symtable
import sys
import types
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Callable, Iterator, Mapping, Sequence

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from trainlint.analysis.summarize import file_facts
from trainlint.context import FileContext
from trainlint.crashes import Handler, HandlerGuard, RuleCrash, apply_guarded
from trainlint.finding import NOQA_FIXES
from trainlint.fixes import disjoint
from trainlint.notebook import Notebook, NotebookError, is_notebook, read_notebook, rewrite
from trainlint.notebook import encoding as notebook_encoding
from trainlint.positions import node_ranges
from trainlint.pyparser import python_error, python_tree, quiet
from trainlint.project import FileFacts, ProjectView, summarizable
from trainlint.rule import Diagnostic, Finding, Rule
from trainlint.source import SourceError, decode, source_lines
from trainlint.summaries import trigger_words
from trainlint.suppression import NoqaUsage, file_suppression
from trainlint.timing import NoTimer, Timer

UNPARSABLE = "TL000"
_MAX_FIX_ROUNDS = 10
_LIBCST_POSITION = re.compile(r"error at (\d+):(\d+)")
# CPython keeps `a and b and ...` flat; LibCST nests it one level per operand
# and its native parser overflows an 8 MiB stack past ~7,000 of them
_MAX_BOOLEAN_OPERANDS = 2_000
_BOOLEAN_KEYWORD = re.compile(r"\b(?:and|or)\b")
_Table = dict[type, list[tuple[Rule, Handler]]]


@dataclass
class FileOutcome:
    findings: list[Finding] = field(default_factory=list)
    fixed_source: str | None = None  # set when fixes changed the text
    fixed_codes: list[str] = field(default_factory=list)  # the rule of each fix applied
    # the findings of the text as read, when fixes changed it: those that stand
    # when the fixed text is not written (the file changed meanwhile, or is read-only)
    findings_as_read: list[Finding] = field(default_factory=list)
    encoding: str = "utf-8"
    facts: FileFacts | None = None  # when asked to summarize and the file was parsed
    timings: dict[str, float] = field(default_factory=dict)  # with a Timer: seconds per stage, analysis, rule
    crashes: list[RuleCrash] = field(default_factory=list)  # rules that raised: their findings are missing

    @property
    def fixes_applied(self) -> int:
        return len(self.fixed_codes)


@contextmanager
def deep_recursion(limit: int = 20_000) -> Iterator[None]:
    """LibCST's metadata and transform passes recurse once per tree level; code
    that CPython accepts can still be deeper than the default limit allows."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


@contextmanager
def collector_paused() -> Iterator[None]:
    """One file's tree and model are hundreds of thousands of objects that all
    live until the file is done: the cyclic collector's passes over them while
    they are built free nothing and cost about a tenth of the analysis. Paused
    for one file; once it is done, reference counting frees them (see
    `SemanticModel.release`)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class _Unparsable(Exception):
    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message, self.line, self.column = message, line, column


def lint_bytes(
    path: str,
    data: bytes,
    rules: Sequence[type[Rule]],
    fix: str | None = None,
    project: ProjectView = ProjectView(),
    timer: Timer | None = None,
) -> FileOutcome:
    """Lint the bytes of one file. `fix` is None, "safe", "unsafe" or "noqa"
    (only the fixes of the rules about `# noqa` comments, for `--add-noqa`); a
    `timer` measures where the time goes (see `trainlint.timing`). A notebook
    (`.ipynb`) is linted as the module its code cells make (see `lint_notebook`)."""
    if is_notebook(path):
        return lint_notebook(path, data, rules, fix, project, timer)
    try:
        source, encoding = decode(data)
    except SourceError as exc:
        return FileOutcome(_unparsable(path, rules, exc.message, exc.line, exc.column))
    outcome = lint_text(path, source, rules, fix, project, timer)
    outcome.encoding = encoding
    return outcome


def lint_text(
    path: str,
    source: str,
    rules: Sequence[type[Rule]],
    fix: str | None = None,
    project: ProjectView = ProjectView(),
    timer: Timer | None = None,
    fitting: Fitting | None = None,
) -> FileOutcome:
    """Lint text that is already decoded, such as an editor's unsaved buffer.
    With `fitting`, fixes are made only as far as the fixed text fits where it
    is written (see `Fitting`)."""
    facts: list[FileFacts] = []
    crashes: list[RuleCrash] = []
    timer = timer or NoTimer()
    try:
        with collector_paused():
            findings, fixed, fixed_codes, as_read = _lint_text(path, source, rules, fix, project, facts, crashes, timer,
                                                               fitting)
    except _Unparsable as exc:
        return FileOutcome(_unparsable(path, rules, exc.message, exc.line, exc.column), timings=timer.seconds)
    changed = fixed != source
    outcome = FileOutcome(findings, fixed if changed else None, fixed_codes, as_read if changed else [],
                          facts=facts[-1] if facts else None)
    outcome.timings, outcome.crashes = timer.seconds, crashes
    return outcome


@dataclass
class Fitting:
    """Where fixed text is written into something else that may not take every
    change: a notebook's cells (see `notebook.rewrite`). `fits` tells whether
    a fixed text can be written; a round of fixes whose text does not fit is
    not made, and with unsafe fixes the round's safe fixes alone are tried.
    After the lint, `kinds` holds the fix safeties ("safe", "unsafe") whose
    fixes, of the findings reported, would be written: made together on the
    tree the findings were found in, as `--fix` makes them."""

    fits: Callable[[str], bool]
    kinds: frozenset[str] = frozenset()


def lint_notebook(
    path: str,
    data: bytes,
    rules: Sequence[type[Rule]],
    fix: str | None = None,
    project: ProjectView = ProjectView(),
    timer: Timer | None = None,
) -> FileOutcome:
    """Lint a notebook: its code cells, in order, parsed once as one module (see
    `trainlint.notebook`), linted once, the findings placed in their cells. A
    notebook that is not valid JSON is TL000's finding. `fix` fixes the module
    as far as its changed cells can be written back into the notebook's JSON
    (see `notebook.rewrite`), which is then `fixed_source`. A finding is
    fixable only where its fix would be written."""
    try:
        notebook = read_notebook(data)
    except NotebookError as exc:
        return FileOutcome(_unparsable(path, rules, exc.message, exc.line, exc.column))
    if not notebook.python:
        return FileOutcome()
    written: dict[str, Notebook | None] = {}

    def fits(fixed: str) -> bool:
        if fixed not in written:
            written.clear()  # only the last text tried is asked for again
            written[fixed] = rewrite(notebook, fixed)
        return written[fixed] is not None

    fitting = Fitting(fits)
    outcome = lint_text(path, notebook.source, rules, fix, project, timer, fitting)
    found_in = notebook
    if outcome.fixed_source is not None:
        # each round of fixes was made only when its text fit: the last one does
        fixed = written[outcome.fixed_source] if fits(outcome.fixed_source) else None
        found_in = fixed or notebook
        outcome.fixed_source = fixed.text if fixed is not None else None  # never the module's text into the JSON
        outcome.findings_as_read = [notebook.relocate(finding, fixable=True) for finding in outcome.findings_as_read]
    outcome.findings = [found_in.relocate(finding, fixable=finding.fix in fitting.kinds) for finding in outcome.findings]
    outcome.findings += broken_cells(path, rules, notebook)
    outcome.encoding = notebook_encoding(data)
    return outcome


def broken_cells(path: str, rules: Sequence[type[Rule]], notebook: Notebook) -> list[Finding]:
    """TL000 in each code cell of `notebook` that is no Python by itself: the
    kernel compiles every cell alone, so the other cells were linted without it."""
    return [notebook.relocate(replace(finding, message=f"cell cannot be parsed: {message} (the other cells are linted)"))
            for _, message, line, column in notebook.broken
            for finding in _unparsable(path, rules, message, line, column)]


def fix_one(path: str, source: str, rules: Sequence[type[Rule]], finding: Finding,
            project: ProjectView = ProjectView()) -> str | None:
    """`source` with the fix of `finding` alone applied (an editor's quick
    fix), or None when the text no longer has that finding or it has no fix."""
    crashes: list[RuleCrash] = []
    try:
        module, diagnostics = _analyse(path, source, rules, project, crashes=crashes)
    except _Unparsable:
        return None
    for diagnostic, found in _positioned(path, module, diagnostics, source, rules, crashes):
        if found == finding and diagnostic.fix is not None and module is not None:
            with deep_recursion():
                fixed, _ = apply_guarded(module, [diagnostic])
            return fixed if fixed != source else None
    return None


def _lint_text(
    path: str,
    source: str,
    rules: Sequence[type[Rule]],
    fix: str | None,
    project: ProjectView,
    facts: list[FileFacts],
    crashes: list[RuleCrash],
    timer: Timer,
    fitting: Fitting | None = None,
) -> tuple[list[Finding], str, list[str], list[Finding]]:
    """Findings, the fixed text, the rule of each fix and the findings of
    `source` itself; the facts of each round's text are appended to `facts`
    (the last describe the result), the rules that raised on the reported
    text to `crashes`. With `fitting`, a round whose fixed text does not fit
    ends the fixes, and `fitting.kinds` is set for the findings reported."""
    original, applied = source, []
    first: tuple[list[Finding], list[RuleCrash]] | None = None
    for _ in range(_MAX_FIX_ROUNDS):
        found: list[RuleCrash] = []
        module, diagnostics = _analyse(path, source, rules, project, facts, timer, found)
        kept = _positioned(path, module, diagnostics, source, rules, found, timer)
        findings = [finding for _, finding in kept]
        first = first or (findings, found)
        outcome = _fix_round(module, [d for d, _ in kept], source, fix, fitting, timer)
        if outcome is None:
            crashes.extend(found)
            return findings, source, applied, first[0]
        new_source, fixable, failed, fix = outcome
        if failed:  # a fix that raises leaves the file as it was
            del facts[1:]
            crashes.extend([*first[1], *failed])
            if fitting is not None:
                fitting.kinds = frozenset()
            return first[0], original, [], first[0]
        applied.extend(d.rule.code for d in fixable)
        source = new_source
    module, diagnostics = _analyse(path, source, rules, project, facts, timer, crashes)
    kept = _positioned(path, module, diagnostics, source, rules, crashes, timer)
    if fitting is not None:
        fitting.kinds = _fitting_kinds(module, [d for d, _ in kept], source, fitting, timer)
    findings = [f for _, f in kept]
    return findings, source, applied, first[0] if first is not None else findings


def _fix_round(module: cst.Module | None, diagnostics: list[Diagnostic], source: str, fix: str | None,
               fitting: Fitting | None, timer: Timer) -> tuple[str, list[Diagnostic], list[RuleCrash], str | None] | None:
    """One round of fixes of `source`: the fixed text, the fixes made, the
    rules whose fixes raised, and the fix mode of the rounds that follow; None
    when nothing changes (then, with `fitting`, its `kinds` are set for
    `diagnostics`). With `fitting` and unsafe fixes whose text does not fit,
    the safe fixes alone are tried, and only they in later rounds."""
    for mode in ([fix, "safe"] if fitting is not None and fix == "unsafe" else [fix]):
        fixable = _chosen(diagnostics, mode)
        if module is None or not fixable:
            continue
        with deep_recursion(), timer.measure("fixes"):
            new_source, failed = apply_guarded(module, fixable, unsafe=mode == "unsafe")
        if failed:
            return new_source, fixable, failed, mode
        if new_source != source and (fitting is None or fitting.fits(new_source)):
            return new_source, fixable, [], mode
    if fitting is not None:
        fitting.kinds = _fitting_kinds(module, diagnostics, source, fitting, timer)
    return None


def _chosen(diagnostics: list[Diagnostic], fix: str | None) -> list[Diagnostic]:
    """The diagnostics whose fixes a round under `fix` makes: those allowed, less
    those whose fixes edit what an earlier one edits (made in a later round)."""
    allowed = [d for d in diagnostics if d.fix is not None and _allowed(d, fix)]
    taken = {id(chosen) for chosen in disjoint([d.fix for d in allowed if d.fix is not None])}
    return [d for d in allowed if id(d.fix) in taken]


def _fitting_kinds(module: cst.Module | None, diagnostics: list[Diagnostic], source: str, fitting: Fitting,
                   timer: Timer) -> frozenset[str]:
    """The fix safeties whose fixes, of `diagnostics`, `--fix` would write: all
    of them when the text with every fix fits, the safe ones when the text
    with those fits, else none."""
    kinds = {d.fix.safety for d in diagnostics if d.fix is not None}
    for mode, allows in (("unsafe", frozenset({"safe", "unsafe"})), ("safe", frozenset({"safe"}))):
        fixable = _chosen(diagnostics, mode) if mode in kinds else []
        if module is None or not fixable:
            continue
        with deep_recursion(), timer.measure("fixes"):
            new_source, failed = apply_guarded(module, fixable, unsafe=mode == "unsafe")
        if not failed and new_source != source and fitting.fits(new_source):
            return allows
    return frozenset()


def _allowed(diagnostic: Diagnostic, fix: str | None) -> bool:
    if fix is None or diagnostic.fix is None:
        return False
    if fix == NOQA_FIXES:
        return diagnostic.rule.audits_noqa
    return diagnostic.fix.safety == "safe" or fix == "unsafe"


def _analyse(
    path: str,
    source: str,
    rules: Sequence[type[Rule]],
    project: ProjectView = ProjectView(),
    facts: list[FileFacts] | None = None,
    timer: Timer = NoTimer(),
    crashes: list[RuleCrash] | None = None,
) -> tuple[cst.Module | None, list[Diagnostic]]:
    """The module and the diagnostics of the rules that ran; a rule that
    raised is appended to `crashes` and its diagnostics are left out."""
    suppression = file_suppression(source)
    if suppression.whole_file:
        return None, []
    # what the functions this file calls do counts as text of the file: a
    # call of a helper that empties the cache can trigger TL201
    text = f"{source}\n{trigger_words(project.external.values())}" if project.external else source
    active = [
        rule
        for rule in rules
        if rule.code != UNPARSABLE
        and rule.code not in suppression.codes
        and rule.may_fire(text)
    ]
    # a member (see `ProjectPass.plan`) exports its facts; a file parsed anyway does when its text has any
    parsed_anyway = project.summarize_if_parsed and bool(active) and summarizable(path, source)
    summarize = facts is not None and (project.summarize or parsed_anyway)
    checks_syntax = any(rule.code == UNPARSABLE for rule in rules) and UNPARSABLE not in suppression.codes
    if not active and not summarize:
        if checks_syntax:
            with timer.measure("parse"):
                _check_syntax(source)
        return None, []
    with timer.measure("parse"):
        module = _parse(source)
    exact = _TAB_EXPANDED.pop(id(module), None) is None
    with timer.measure("model"):
        ctx = FileContext(path, source, module, project.external, timer)  # complete before any rule runs
    diagnostics = _run_rules(ctx, active, timer, crashes if crashes is not None else [])
    if not exact:  # parsed with its indentation's tabs expanded: no fixes
        diagnostics = [replace(d, fix=None) if d.fix is not None else d for d in diagnostics]
    if summarize and facts is not None:
        with timer.measure("file_facts"):
            facts.append(file_facts(ctx))
        if project.keep_tree and facts[-1].calls and exact:
            KEPT_TREES.keep(source, module)
    ctx.release()
    return module, diagnostics


def _run_rules(ctx: FileContext, active: list[type[Rule]], timer: Timer, crashes: list[RuleCrash]) -> list[Diagnostic]:
    crashed: dict[int, RuleCrash] = {}  # by the id of the rule instance
    instances: list[Rule] = []
    for rule in active:
        try:
            instances.append(rule(ctx))
        except Exception as exc:  # noqa: BLE001 - reported as a crash of the rule
            crashes.append(RuleCrash.of(rule.code, "visit", exc))
    _dispatch(ctx, instances, timer, crashed)
    for instance in instances:
        if id(instance) in crashed:
            continue
        with timer.measure(instance.code):
            try:
                instance.finish()
            except Exception as exc:  # noqa: BLE001 - reported as a crash of the rule
                crashed[id(instance)] = RuleCrash.of(instance.code, "finish", exc)
    crashes.extend(crashed.values())
    return [diagnostic for instance in instances if id(instance) not in crashed for diagnostic in instance.diagnostics]


@contextmanager
def _parser_output_trusted() -> Iterator[None]:
    """LibCST checks every node as it is built (`CSTNode._validate`: required
    spaces, balanced parentheses, ...), also the nodes its own parser builds
    from valid text, where they hold by construction: about an eighth of the
    parse. And each node class's constructor, generated by `dataclasses`,
    looks up `object.__setattr__` again for every field. While the parser
    runs, the node classes take constructors that store the same fields in
    the same slots and check nothing (see `_lean_init`): another tenth of the
    parse. The tests compare the trees with checked parses. Nodes built
    after the parse (fixes) are built and checked as always."""
    check = cst.CSTNode.__post_init__
    swaps = _lean_constructors()
    try:  # an interrupt while they are swapped in still puts every original back
        cst.CSTNode.__post_init__ = _unchecked  # type: ignore[method-assign]
        for cls, _, lean in swaps:
            cls.__init__ = lean  # type: ignore[misc]
        yield
    finally:
        for cls, original, _ in swaps:
            cls.__init__ = original  # type: ignore[misc]
        cst.CSTNode.__post_init__ = check  # type: ignore[method-assign]


def _unchecked(node: cst.CSTNode) -> None:
    return None


_LEAN: list[tuple[type, object, object]] | None = None  # (node class, its constructor, the lean one)


def _lean_constructors() -> list[tuple[type, object, object]]:
    """Worked out once per process (none when no class qualifies)."""
    global _LEAN
    if _LEAN is None:
        _LEAN = []
        for cls in vars(cst).values():
            if type(cls) is abc.ABCMeta and issubclass(cls, cst.CSTNode) and "__init__" in cls.__dict__:
                lean = _lean_init(cls)
                if lean is not None:
                    _LEAN.append((cls, cls.__dict__["__init__"], lean))
    return _LEAN


def _lean_init(cls: type) -> object | None:
    """A constructor for the node class `cls` that does what its dataclass
    constructor does but call `__post_init__`: set each field's slot, in
    order, from the same parameters with the same defaults. None (the class
    keeps its own) unless that constructor is the generated one, of a frozen
    dataclass whose fields all live in slots and whose `__post_init__` is
    the plain check, so that nothing else is skipped."""
    original = cls.__dict__["__init__"]
    if (
        not dataclasses.is_dataclass(cls)
        or not cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
        or cls.__post_init__ is not _CHECK  # type: ignore[attr-defined]
        or getattr(getattr(original, "__code__", None), "co_filename", "") != "<string>"
    ):
        return None
    namespace: dict[str, object] = {"_FACTORY": _FACTORY}
    parameters, body = [], []
    for i, f in enumerate(dataclasses.fields(cls)):
        slot = next((k.__dict__[f.name] for k in cls.__mro__ if f.name in k.__dict__), None)
        if type(slot) is not types.MemberDescriptorType or not f.init or f.kw_only:
            return None
        namespace[f"_set{i}"] = slot.__set__
        value = f.name
        if f.default is not dataclasses.MISSING:
            namespace[f"_default{i}"] = f.default
            parameters.append(f"{f.name}=_default{i}")
        elif f.default_factory is not dataclasses.MISSING:
            namespace[f"_factory{i}"] = f.default_factory
            parameters.append(f"{f.name}=_FACTORY")
            value = f"_factory{i}() if {f.name} is _FACTORY else {f.name}"
        else:
            parameters.append(f.name)
        body.append(f"    _set{i}(self, {value})")
    source = "\n".join([f"def __init__(self, {', '.join(parameters)}):", *(body or ["    pass"])])
    exec(source, namespace)  # noqa: S102 - built from the dataclass's own field names
    lean = namespace["__init__"]
    if not _same_parameters(original, lean):
        return None
    lean.__qualname__ = f"{cls.__qualname__}.__init__"  # type: ignore[attr-defined]
    return lean


def _same_parameters(original: object, lean: object) -> bool:
    """Same names, kinds and defaults (a default factory's stand-in aside)."""
    theirs = list(inspect.signature(original).parameters.values())  # type: ignore[arg-type]
    ours = list(inspect.signature(lean).parameters.values())  # type: ignore[arg-type]
    return len(theirs) == len(ours) and all(
        a.name == b.name
        and a.kind == b.kind
        and (a.default is b.default or (b.default is _FACTORY and a.default is not inspect.Parameter.empty))
        for a, b in zip(theirs, ours)
    )


_CHECK = cst.CSTNode.__post_init__
_FACTORY = object()  # the default of a parameter whose field has a default factory


class KeptTrees:
    """Trees of files that will be analysed again in this process (see
    `ProjectView.keep_tree`), by their exact text, each used once. A tree is
    immutable and the same text always parses to an equal tree, so a kept
    one stands for a parse. Bounded by the text it holds (a tree takes
    about 40 times the memory of its text); the oldest go first."""

    def __init__(self, limit: int = 16_000_000) -> None:
        self.limit = limit
        self.freeze = False  # set in worker processes: see `keep`
        self._trees: dict[str, cst.Module] = {}  # insertion order: oldest first
        self._size = 0

    def keep(self, source: str, module: cst.Module) -> None:
        if len(source) > self.limit or source in self._trees:
            return
        self._trees[source] = module
        self._size += len(source)
        while self._size > self.limit:
            oldest = next(iter(self._trees))
            del self._trees[oldest]
            self._size -= len(oldest)
        if self.freeze:
            # kept trees hold millions of objects and no cycle: the
            # collector's full passes over them cost much and free nothing.
            # Only in a worker: frozen, the garbage cycles of the process
            # at that moment would never be collected.
            gc.freeze()

    def clear(self) -> None:
        self._trees.clear()
        self._size = 0

    def take(self, source: str) -> cst.Module | None:
        module = self._trees.pop(source, None)
        if module is not None:
            self._size -= len(source)
        return module


KEPT_TREES = KeptTrees()


# trees parsed from a source with its indentation's tabs expanded (see `_parse`), by id,
# until the lint that asked for them takes them out: their text is not the file's
_TAB_EXPANDED: dict[int, cst.Module] = {}


def _parse(source: str) -> cst.Module:
    kept = KEPT_TREES.take(source)
    if kept is not None:
        return kept  # only trees of the file's own text are kept
    _refuse_deep_nesting(source)
    try:
        with _parser_output_trusted():
            return cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        line, column = exc.raw_line, exc.raw_column + 1
        match = _LIBCST_POSITION.search(exc.message)
        if match:
            line, column = int(match.group(1)), int(match.group(2)) + 1
        refused = python_error(source)
        if refused is None and "\t" in source:
            # valid Python that LibCST's tokenizer rejects: a line indented by a tab after
            # spaces (`\t    y = 1` under a 4-space block), which CPython reads with tabs
            # to the next multiple of 8. The same lines with their indentation's tabs
            # expanded parse; findings keep their lines, and no fix is applied to such a
            # tree (see `lint_source`: its text is not the file's)
            expanded = _expand_indentation_tabs(source)
            if expanded != source:
                try:
                    with _parser_output_trusted():
                        module = cst.parse_module(expanded)
                    _TAB_EXPANDED[id(module)] = module
                    return module
                except cst.ParserSyntaxError:
                    pass
        if refused is not None and refused.lineno:
            # CPython points at the offending token, LibCST at where it gave up
            line, column = refused.lineno, max(refused.offset or 1, 1)
        message = f"syntax error: {refused.msg}" if refused is not None else "syntax error"
        raise _Unparsable(message, line, column) from None
    except RecursionError:
        raise _Unparsable("code is nested too deeply to parse", 1, 1) from None


def _expand_indentation_tabs(source: str) -> str:
    """`source` with the tabs of each line's leading whitespace expanded as CPython's
    tokenizer counts them (to the next multiple of 8)."""
    lines = source.splitlines(keepends=True)
    for index, line in enumerate(lines):
        body = line.lstrip(" \t")
        indent = line[:len(line) - len(body)]
        if "\t" in indent:
            lines[index] = indent.expandtabs(8) + body
    return "".join(lines)


def _refuse_deep_nesting(source: str) -> None:
    """LibCST's native parser can overflow its stack, killing the process, on
    code nested far deeper than any person writes. CPython's parser refuses
    such code cleanly, so it screens every file first (building only its
    symbol table: a fifth cheaper than `compile()` to a tree); it only misses
    long `and` / `or` chains, which it keeps flat."""
    try:
        with quiet():
            symtable.symtable(source, "<lint>", "exec")
        chain = _long_boolean_chain(source)
    except (RecursionError, MemoryError):
        raise _Unparsable("code is nested too deeply to parse", 1, 1) from None
    except SyntaxError as exc:
        if "too many nested" in str(exc.msg) or "too complex" in str(exc.msg):
            raise _Unparsable(f"syntax error: {exc.msg}", exc.lineno or 1, exc.offset or 1) from None
        return
    except ValueError:
        return  # NUL bytes and the like: LibCST reports them
    if chain is not None:
        raise _Unparsable("code is nested too deeply to parse", chain.lineno, chain.col_offset + 1)


def _long_boolean_chain(source: str) -> ast.BoolOp | None:
    """An `and` / `or` chain of more than `_MAX_BOOLEAN_OPERANDS` operands;
    the tree is only built and searched when the text holds that many
    keywords (counted as substrings first: a cheap upper bound)."""
    if source.count("and") + source.count("or") < _MAX_BOOLEAN_OPERANDS:
        return None
    if len(_BOOLEAN_KEYWORD.findall(source)) < _MAX_BOOLEAN_OPERANDS:
        return None
    return next(
        (node for node in ast.walk(python_tree(source)) if isinstance(node, ast.BoolOp) and len(node.values) > _MAX_BOOLEAN_OPERANDS),
        None,
    )


def _check_syntax(source: str) -> None:
    """Files no rule can match skip LibCST; CPython's parser, far faster,
    still catches what does not parse. Its verdict is confirmed by LibCST."""
    try:
        python_tree(source)
    except (SyntaxError, ValueError):
        _parse(source)
    except (RecursionError, MemoryError):
        raise _Unparsable("code is nested too deeply to parse", 1, 1) from None


def _dispatch(ctx: FileContext, instances: list[Rule], timer: Timer, crashed: dict[int, RuleCrash]) -> None:
    """Call the rules' `visit_` / `leave_` handlers over the model's nodes in
    source order, as a depth-first walk would, without walking again; a rule
    that raises is recorded in `crashed` and called no more."""
    visits: _Table = {}
    leaves: _Table = {}
    for instance in instances:
        for node_type, method in _handlers(type(instance), "visit_"):
            visits.setdefault(node_type, []).append((instance, _timed(timer, instance.code, getattr(instance, method))))
        for node_type, method in _handlers(type(instance), "leave_"):
            leaves.setdefault(node_type, []).append((instance, _timed(timer, instance.code, getattr(instance, method))))
    if not visits and not leaves:
        return
    guard = HandlerGuard((visits, leaves), crashed)
    # only the nodes some rule handles, in source order; a node is left once
    # the walk is past the last node under it, before the next one is visited
    open_nodes: list[tuple[int, cst.CSTNode]] = []  # (end of its subtree, node), innermost last
    for node in ctx.nodes_of(*visits, *leaves):
        if open_nodes:
            place = ctx.order_index(node)
            while open_nodes and open_nodes[-1][0] < place:
                _leave(open_nodes.pop()[1], leaves, guard)
        handlers = visits.get(type(node))
        if handlers:
            guard.call(handlers, node)
        if type(node) in leaves:
            open_nodes.append((ctx.subtree_end(node), node))
    while open_nodes:
        _leave(open_nodes.pop()[1], leaves, guard)


def _leave(node: cst.CSTNode, leaves: _Table, guard: HandlerGuard) -> None:
    handlers = leaves.get(type(node))
    if handlers:
        guard.call(handlers, node)


def _timed(timer: Timer, label: str, handler: Handler) -> Handler:
    if not timer.enabled:
        return handler

    def measured(node: cst.CSTNode) -> object:
        with timer.measure(label):
            return handler(node)

    return measured


_HANDLER_CACHE: dict[tuple[type, str], list[tuple[type, str]]] = {}


def _handlers(rule: type[Rule], prefix: str) -> list[tuple[type, str]]:
    key = (rule, prefix)
    cached = _HANDLER_CACHE.get(key)
    if cached is None:
        cached = []
        for attr in dir(rule):
            if attr.startswith(prefix):
                node_type = getattr(cst, attr[len(prefix):], None)
                if isinstance(node_type, type) and issubclass(node_type, cst.CSTNode):
                    cached.append((node_type, attr))
        _HANDLER_CACHE[key] = cached
    return cached


def _positioned(
    path: str,
    module: cst.Module | None,
    diagnostics: list[Diagnostic],
    source: str,
    rules: Sequence[type[Rule]],
    crashes: list[RuleCrash],
    timer: Timer = NoTimer(),
) -> list[tuple[Diagnostic, Finding]]:
    """Findings with their positions, minus those a line `# noqa` covers;
    then the rules about `# noqa` comments judge the comments (a code whose
    rule crashed suppressed nothing, and is not judged unused)."""
    auditors = [r for r in rules if r.audits_noqa and r.may_fire(source)]
    if module is None or not (diagnostics or auditors):
        return []
    with deep_recursion(), timer.measure("positions"):
        positions = _positions(module, diagnostics, every=bool(auditors))
    ran = frozenset(rule.code for rule in rules) - file_suppression(source).codes - {c.code for c in crashes}
    usage = NoqaUsage(source_lines(source), ran)
    kept = _unsuppressed(path, diagnostics, positions, usage)
    audits = [d for rule in auditors if rule.code in ran for d in _audit(rule, positions, usage, crashes)]
    kept.extend(_unsuppressed(path, audits, positions, usage))
    kept.sort(key=lambda pair: pair[1])
    return kept


def _audit(
    rule: type[Rule], positions: Mapping[cst.CSTNode, CodeRange], usage: NoqaUsage, crashes: list[RuleCrash]
) -> list[Diagnostic]:
    try:
        return rule.audit_noqa(positions, usage)
    except Exception as exc:  # noqa: BLE001 - reported as a crash of the rule
        crashes.append(RuleCrash.of(rule.code, "noqa", exc))
        return []


def _positions(module: cst.Module, diagnostics: list[Diagnostic], every: bool) -> Mapping[cst.CSTNode, CodeRange]:
    """`PositionProvider`'s ranges: of every node when a rule judges the
    comments, else of the reported nodes only (see `trainlint.positions`)."""
    if every:
        return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    ranges = node_ranges(module, [diagnostic.node for diagnostic in diagnostics])
    return {node: CodeRange(CodePosition(*start), CodePosition(*end)) for node, (start, end) in ranges.items()}


def _unsuppressed(
    path: str, diagnostics: list[Diagnostic], positions: Mapping[cst.CSTNode, CodeRange], usage: NoqaUsage
) -> list[tuple[Diagnostic, Finding]]:
    kept: list[tuple[Diagnostic, Finding]] = []
    for diagnostic in diagnostics:
        where = positions[diagnostic.node]
        rule = diagnostic.rule
        finding = Finding(
            path=path,
            line=where.start.line,
            column=where.start.column + 1,
            end_line=where.end.line,
            end_column=where.end.column + 1,
            code=rule.code,
            name=rule.name,
            severity=rule.severity,
            message=diagnostic.message,
            fixable=diagnostic.fix is not None,
            fix=diagnostic.fix.safety if diagnostic.fix is not None else None,
        )
        if not usage.suppresses(finding.line, finding.end_line, rule.code):
            kept.append((diagnostic, finding))
    return kept


def _unparsable(
    path: str, rules: Sequence[type[Rule]], message: str, line: int, column: int
) -> list[Finding]:
    rule = next((rule for rule in rules if rule.code == UNPARSABLE), None)
    if rule is None:
        return []
    return [
        Finding(path, line, column, line, column, rule.code, rule.name, rule.severity,
                f"{rule.message}: {message}")
    ]
