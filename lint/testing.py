"""Running one rule on a snippet, for rule examples, fixtures and tests."""

from __future__ import annotations

import io
import tokenize
from collections import Counter

from trainlint.engine import FileOutcome, lint_bytes
from trainlint.rule import Finding, Rule


class RuleCrashed(AssertionError):
    """A rule raised on an example: the engine records the crash and drops
    the rule's findings, so an example it should pass would pass silently."""


def _with_audited(rule: type[Rule]) -> list[type[Rule]]:
    """The rule, and for a rule about `# noqa` comments every rule, since it
    judges the codes of rules that ran."""
    if not rule.audits_noqa:
        return [rule]
    from trainlint.registry import all_rules

    return list(all_rules())


def uncrashed(outcome: FileOutcome, path: str) -> FileOutcome:
    """`outcome`, or `RuleCrashed` naming every rule that raised and why."""
    if outcome.crashes:
        raise RuleCrashed("\n".join(crash.describe(path) for crash in outcome.crashes))
    return outcome


def findings_of(rule: type[Rule], source: str, path: str = "example.py") -> list[Finding]:
    """The findings of `rule` alone on `source`; `RuleCrashed` when a rule raises."""
    outcome = uncrashed(lint_bytes(path, source.encode("utf-8"), _with_audited(rule)), path)
    return [f for f in outcome.findings if f.code == rule.code]


def found_marks(rule: type[Rule], source: str) -> set[tuple[int, str]]:
    return {(f.line, f.code) for f in findings_of(rule, source)}


def fixed_source(rule: type[Rule], source: str, unsafe: bool = False) -> str:
    """`source` with the fixes of `rule` made; `RuleCrashed` when a rule or its fix raises."""
    fixed = lint_bytes("example.py", source.encode("utf-8"), _with_audited(rule), fix="unsafe" if unsafe else "safe")
    outcome = uncrashed(fixed, "example.py")
    return outcome.fixed_source if outcome.fixed_source is not None else source


def comment_tokens(source: str) -> Counter[str]:
    """Every comment of `source`, counted: a fix must keep them all."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return Counter(tok.string for tok in tokens if tok.type == tokenize.COMMENT)
