"""What a rule is: its identity, its docs and examples, and how it reports.

A rule module in `rules/` defines one subclass of `Rule`. The engine builds
the file's semantic model first (`trainlint.semantic`: parents, scopes, bindings,
call graph), then creates one instance of each rule, calls its
`visit_<Node>` / `leave_<Node>` methods over the nodes in source order, and
`finish()` once every node has been seen, which is where rules about order or
absence decide. Every query of the model is already answerable in `visit_`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Mapping

import libcst as cst

from trainlint.finding import Finding, FixSafety, Severity  # noqa: F401 - Finding is re-exported

if TYPE_CHECKING:
    from libcst.metadata import CodeRange

    from trainlint.context import FileContext
    from trainlint.suppression import NoqaUsage


Replacement = cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel

DOC_HEADINGS = ("What it does", "Why is this bad?", "Fix safety")
EXPECT_MARK = re.compile(r"#\s*expect:\s*(TL\d{3}(?:\s*,\s*TL\d{3})*)")


@dataclass(frozen=True)
class Example:
    """A bad example, with the text `--fix` must turn it into (if fixable)."""

    code: str
    fixed: str | None = None


@dataclass
class Fix:
    """Node replacements applied together through one LibCST transform.

    `edits` maps nodes of the parsed tree (by identity) to their replacement.
    `imports` are `import X` statements the new code needs, added when the file
    does not already bind `X` at module level. `unused_imports` name imports
    the fix may have made unused; each is removed only if nothing refers to it
    any more.
    """

    edits: dict[cst.CSTNode, Replacement]
    safety: FixSafety = "safe"
    imports: tuple[str, ...] = ()
    # qualified names whose imports the fix may leave unused: dropped if so
    unused_imports: tuple[str, ...] = ()


@dataclass
class Diagnostic:
    """A finding still attached to its node; positions are resolved later."""

    rule: type[Rule]
    node: cst.CSTNode
    message: str
    fix: Fix | None = None


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    message: ClassVar[str]
    fix_safety: ClassVar[FixSafety | None] = None
    preview: ClassVar[bool] = False
    # The file must contain one of these substrings for the rule to be able to
    # fire; files that contain none are not analysed for this rule.
    triggers: ClassVar[tuple[str, ...]] = ()
    bad: ClassVar[tuple[Example | str, ...]] = ()
    good: ClassVar[tuple[str, ...]] = ()
    # A rule about the `# noqa` comments themselves: the engine calls its
    # `audit_noqa` once every other rule's findings met the comments.
    audits_noqa: ClassVar[bool] = False

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.diagnostics: list[Diagnostic] = []
        self._reported: set[cst.CSTNode] = set()

    def report(self, node: cst.CSTNode, message: str | None = None, fix: Fix | None = None) -> None:
        """Record a finding at `node`, once per node."""
        if node in self._reported:
            return
        self._reported.add(node)
        self.diagnostics.append(Diagnostic(type(self), node, message or self.message, fix))

    def finish(self) -> None:
        """Called after the whole file was visited."""

    @classmethod
    def may_fire(cls, source: str) -> bool:
        """A cheap text test: False when the rule cannot find anything in
        `source`, which is then not analysed for it."""
        return not cls.triggers or any(token in source for token in cls.triggers)

    @classmethod
    def audit_noqa(cls, positions: Mapping[cst.CSTNode, CodeRange], usage: NoqaUsage) -> list[Diagnostic]:
        """For rules with `audits_noqa`: findings about the line `# noqa`
        comments, knowing which of their codes suppressed something."""
        return []

    # -- class-level helpers for the registry, docs and tests --------------
    @classmethod
    def fixable(cls) -> bool:
        return cls.fix_safety is not None

    @classmethod
    def enabled_by_default(cls) -> bool:
        return not cls.preview

    @classmethod
    def bad_examples(cls) -> list[Example]:
        return [ex if isinstance(ex, Example) else Example(ex) for ex in cls.bad]

    @classmethod
    def docs(cls) -> str:
        import inspect

        return inspect.cleandoc(cls.__doc__ or "")


def expected_marks(source: str) -> set[tuple[int, str]]:
    """(line, code) pairs marked with `# expect: CODE` in an example or fixture."""
    marks: set[tuple[int, str]] = set()
    for lineno, line in enumerate(source.splitlines(), start=1):
        match = EXPECT_MARK.search(line)
        if match:
            for code in match.group(1).split(","):
                marks.add((lineno, code.strip()))
    return marks
