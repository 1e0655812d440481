"""A rule (or its fix) that raises is a bug in trainlint, not in the code
being linted: the crash is recorded with the rule's code, the other rules'
findings are still reported, and the command ends with status 2."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Literal, Sequence

import libcst as cst

from trainlint.fixes import apply_fixes
from trainlint.rule import Diagnostic, Rule

Stage = Literal["visit", "finish", "fix", "noqa", "lint"]
Handler = Callable[[cst.CSTNode], object]


@dataclass(frozen=True)
class RuleCrash:
    code: str | None  # None: the engine itself, outside any rule
    stage: Stage
    error: str  # "ValueError: message"

    @classmethod
    def of(cls, code: str | None, stage: Stage, exc: BaseException) -> RuleCrash:
        return cls(code, stage, f"{type(exc).__name__}: {exc}")

    def describe(self, path: str) -> str:
        who = "the linter" if self.code is None else self.code
        doing = " while fixing" if self.stage == "fix" else ""
        return f"{who} crashed{doing} on {path}: {self.error}; this is a bug in trainlint, please report it"


def apply_guarded(module: cst.Module, fixable: Sequence[Diagnostic],
                  unsafe: bool = False) -> tuple[str, list[RuleCrash]]:
    """The module's code with the fixes of `fixable` applied; when applying
    them raises, the code unchanged and a crash for each rule whose fixes
    raise alone (for every rule involved when only their mix does)."""
    try:
        return apply_fixes(module, [d.fix for d in fixable if d.fix is not None], unsafe), []
    except Exception as exc:  # noqa: BLE001 - reported as a crash of the rule
        mixed = exc
    by_code: dict[str, list[Diagnostic]] = {}
    for diagnostic in fixable:
        by_code.setdefault(diagnostic.rule.code, []).append(diagnostic)
    crashes = [crash for code, own in by_code.items()
               if (crash := _crash_alone(module, code, own, unsafe)) is not None]
    return module.code, crashes or [RuleCrash.of(code, "fix", mixed) for code in by_code]


def _crash_alone(module: cst.Module, code: str, fixable: list[Diagnostic], unsafe: bool) -> RuleCrash | None:
    try:
        apply_fixes(module, [d.fix for d in fixable if d.fix is not None], unsafe)
    except Exception as exc:  # noqa: BLE001 - reported as a crash of the rule
        return RuleCrash.of(code, "fix", exc)
    return None


class HandlerGuard:
    """Calls the rules' `visit_` / `leave_` handlers; a rule whose handler
    raises is recorded in `crashed` (by the instance's id) and called no more."""

    def __init__(self, tables: Sequence[dict[type, list[tuple[Rule, Handler]]]], crashed: dict[int, RuleCrash]) -> None:
        self.tables = tables
        self.crashed = crashed

    def call(self, handlers: list[tuple[Rule, Handler]], node: cst.CSTNode) -> None:
        for rule, handler in handlers:
            try:
                handler(node)
            except Exception as exc:  # noqa: BLE001 - reported as a crash of the rule
                self.crashed[id(rule)] = RuleCrash.of(rule.code, "visit", exc)
                self._drop(rule)

    def _drop(self, rule: Rule) -> None:
        for table in self.tables:
            for node_type, handlers in table.items():
                table[node_type] = [pair for pair in handlers if pair[0] is not rule]
