"""Order of events along the paths of one function body.

Rules about order ("clip reached after `scale().backward()` with no `unscale_`
in between", "zero_grad between backward and step") need control flow, not
line order: a clip in the `else:` branch of `if scaler is not None:` does not
follow the `scaler.step` of the `if:` branch.

`Flow` runs a rule's `transfer(facts, node)` over the calls and assignments of
a body in evaluation order, along every path. Paths fork at `if` and merge after
it; loops run until their facts stop changing; `break`, `continue`, `return`
and `raise` end a path where Python would. Branches are path-sensitive on the
text of their condition: after `if amp: A` a later `if amp: B` takes the same
branch, so A-without-B paths that cannot happen are not explored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

import libcst as cst

from lint.analysis.walk import calls_in_order, iter_nodes

Facts = frozenset
Transfer = Callable[[Facts, cst.CSTNode], Facts]
_MAX_PATHS = 64
_MAX_LOOP_ROUNDS = 4


@dataclass(frozen=True)
class Path:
    facts: Facts
    assumptions: frozenset[tuple[str, bool]] = frozenset()


Paths = frozenset[Path]


class Flow:
    """Forward analysis of one body. `transfer` sees each event (a Call, an
    Assign, AugAssign, AnnAssign or Del node) with the facts of one path and
    returns the facts after it. `loop_back` maps the facts that flow from the
    end of a loop body back to its start (rules about "the same iteration"
    clear their facts there)."""

    def __init__(
        self,
        module: cst.Module,
        transfer: Transfer,
        loop_back: Callable[[Facts], Facts] | None = None,
        loop_exit: Callable[[cst.For | cst.While, Facts], Facts] | None = None,
    ) -> None:
        self.module = module
        self.transfer = transfer
        self.loop_back = loop_back or (lambda facts: facts)
        # maps the facts of paths leaving a loop (None: unchanged)
        self.loop_exit = loop_exit
        # paths that left the body by `return`, with the facts they had
        self.returned: set[Path] = set()
        self._loops: list[tuple[set[Path], set[Path]]] = []  # (breaks, continues)
        # condition text -> the names it reads, or None when it calls something
        self._condition_names: dict[str, frozenset[str] | None] = {}

    def run(self, body: cst.BaseSuite | cst.Module, facts: Facts = frozenset()) -> Paths:
        """Facts of every path that reaches the end of `body` (a function's
        body, or a module's top-level statements)."""
        return self._block(_stmts(body), frozenset({Path(facts)}))

    # -- statements ----------------------------------------------------------
    def _block(self, stmts: Iterable[cst.CSTNode], paths: Paths) -> Paths:
        for stmt in stmts:
            if not paths:
                break
            paths = self._statement(stmt, paths)
        return paths

    def _statement(self, stmt: cst.CSTNode, paths: Paths) -> Paths:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                paths = self._small(small, paths)
            return paths
        if isinstance(stmt, cst.If):
            return self._if(stmt, paths)
        if isinstance(stmt, cst.For | cst.While):
            return self._loop(stmt, paths)
        if isinstance(stmt, cst.With):
            for item in stmt.items:
                paths = self._events(item.item, paths)
            return self._block(_stmts(stmt.body), paths)
        if isinstance(stmt, cst.Try | cst.TryStar):
            return self._try(stmt, paths)
        if isinstance(stmt, cst.Match):
            paths = self._events(stmt.subject, paths)
            out: set[Path] = set()
            for case in stmt.cases:
                out |= self._block(_stmts(case.body), paths)
            return _limit(out | paths)
        return paths  # nested def / class: their bodies do not run here

    def _small(self, small: cst.BaseSmallStatement, paths: Paths) -> Paths:
        if isinstance(small, cst.Return):
            self.returned |= self._events(small, paths)
            return frozenset()
        if isinstance(small, cst.Raise):
            self._events(small, paths)
            return frozenset()
        if isinstance(small, cst.Break | cst.Continue):
            if self._loops:
                breaks, continues = self._loops[-1]
                (breaks if isinstance(small, cst.Break) else continues).update(paths)
            return frozenset()
        paths = self._events(small, paths)
        if isinstance(small, cst.Assign | cst.AugAssign | cst.AnnAssign | cst.Del):
            paths = self._apply(small, paths)
        return paths

    def _if(self, stmt: cst.If, paths: Paths) -> Paths:
        paths = self._events(stmt.test, paths)
        key, polarity = self._condition(stmt.test)
        taken: set[Path] = set()
        skipped: set[Path] = set()
        for path in paths:
            known = dict(path.assumptions).get(key)
            if known is None or known == polarity:
                taken.add(Path(path.facts, path.assumptions | {(key, polarity)}))
            if known is None or known != polarity:
                skipped.add(Path(path.facts, path.assumptions | {(key, not polarity)}))
        out = set(self._block(_stmts(stmt.body), frozenset(taken)))
        if isinstance(stmt.orelse, cst.If):
            out |= self._if(stmt.orelse, frozenset(skipped))
        elif stmt.orelse is not None:
            out |= self._block(_stmts(stmt.orelse.body), frozenset(skipped))
        else:
            out |= skipped
        return _limit(out)

    def _loop(self, stmt: cst.For | cst.While, paths: Paths) -> Paths:
        if isinstance(stmt, cst.For):
            paths = self._events(stmt.iter, paths)
        else:
            paths = self._events(stmt.test, paths)
        infinite = isinstance(stmt, cst.While) and _always_true(stmt.test)
        entry = paths
        breaks: set[Path] = set()
        head: set[Path] = set(paths)
        ends: set[Path] = set()
        invariant = self._invariant_conditions(stmt)
        for _ in range(_MAX_LOOP_ROUNDS):
            continues: set[Path] = set()
            self._loops.append((breaks, continues))
            ends = set(self._block(_stmts(stmt.body), frozenset(head)))
            self._loops.pop()
            back = {
                Path(self.loop_back(p.facts), _keep(p.assumptions, entry, invariant))
                for p in ends | continues
            }
            if back <= head:
                break
            head = set(_limit(frozenset(head | back)))
        exits = set() if infinite else set(entry) | ends
        if stmt.orelse is not None and exits:
            exits = set(self._block(_stmts(stmt.orelse.body), frozenset(exits)))
        out = _limit(frozenset(exits | breaks))
        if self.loop_exit is None:
            return out
        return frozenset(Path(self.loop_exit(stmt, p.facts), p.assumptions) for p in out)

    def _try(self, stmt: cst.Try | cst.TryStar, paths: Paths) -> Paths:
        body_out = self._block(_stmts(stmt.body), paths)
        out: set[Path] = set()
        handler_in = _limit(paths | body_out)
        for handler in stmt.handlers:
            out |= self._block(_stmts(handler.body), handler_in)
        if stmt.orelse is not None:
            body_out = self._block(_stmts(stmt.orelse.body), body_out)
        out |= body_out
        if stmt.finalbody is not None:
            out = set(self._block(_stmts(stmt.finalbody.body), frozenset(out)))
        return _limit(frozenset(out))

    # -- events --------------------------------------------------------------
    def _events(self, node: cst.CSTNode, paths: Paths) -> Paths:
        for call in calls_in_order(node):
            paths = self._apply(call, paths)
        return paths

    def _apply(self, node: cst.CSTNode, paths: Paths) -> Paths:
        return frozenset(Path(self.transfer(p.facts, node), p.assumptions) for p in paths)

    def _invariant_conditions(self, loop: cst.For | cst.While) -> Callable[[str], bool]:
        """A test over names the loop never assigns (`if self.use_amp:`), with
        no call in it, has the same value on every iteration."""
        assigned = _assigned_names(loop)

        def invariant(key: str) -> bool:
            names = self._condition_names.get(key)
            return names is not None and "*" not in assigned and not names & assigned

        return invariant

    def _condition(self, test: cst.BaseExpression) -> tuple[str, bool]:
        key, polarity = self._condition_key(test)
        if key not in self._condition_names:
            nodes = list(iter_nodes(test))
            calls = any(isinstance(node, cst.Call) for node in nodes)
            names = frozenset(node.value for node in nodes if isinstance(node, cst.Name))
            self._condition_names[key] = None if calls else names
        return key, polarity

    def _condition_key(self, test: cst.BaseExpression) -> tuple[str, bool]:
        polarity = True
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, polarity = test.expression, not polarity
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            target = test.comparisons[0]
            if isinstance(target.comparator, cst.Name) and target.comparator.value == "None":
                if isinstance(target.operator, cst.Is):
                    return self.module.code_for_node(test.left), not polarity
                if isinstance(target.operator, cst.IsNot):
                    return self.module.code_for_node(test.left), polarity
        return self.module.code_for_node(test), polarity


def _stmts(body: cst.BaseSuite | cst.Module) -> tuple[cst.CSTNode, ...]:
    if isinstance(body, cst.IndentedBlock | cst.Module):
        return tuple(body.body)
    if isinstance(body, cst.SimpleStatementSuite):
        return (cst.SimpleStatementLine(body=body.body),)
    return ()


def _keep(
    assumptions: frozenset[tuple[str, bool]], entry: Paths, invariant: Callable[[str], bool]
) -> frozenset[tuple[str, bool]]:
    """Conditions decided inside a loop body may change by the next iteration,
    unless nothing in the loop can change them."""
    outer = {key for path in entry for key, _ in path.assumptions}
    return frozenset(a for a in assumptions if a[0] in outer or invariant(a[0]))


def _assigned_names(loop: cst.For | cst.While) -> frozenset[str]:
    """Names (and attribute names, for `self.flag = ...`) a loop may rebind."""
    assigned: set[str] = set()
    targets: list[cst.CSTNode] = [loop.target] if isinstance(loop, cst.For) else []
    for node in iter_nodes(loop):
        if isinstance(node, cst.Assign):
            targets.extend(t.target for t in node.targets)
        elif isinstance(node, cst.AugAssign | cst.AnnAssign | cst.NamedExpr | cst.For):
            targets.append(node.target)
        elif isinstance(node, cst.AsName):
            targets.append(node.name)
        elif isinstance(node, cst.Global | cst.Nonlocal | cst.Del):
            return frozenset({"*"})  # too dynamic to reason about: nothing is invariant
    for target in targets:
        for part in iter_nodes(target):
            if isinstance(part, cst.Name):
                assigned.add(part.value)
    return frozenset(assigned)


def _limit(paths: frozenset[Path] | set[Path]) -> Paths:
    if len(paths) <= _MAX_PATHS:
        return frozenset(paths)
    return frozenset({Path(p.facts) for p in paths})


def _always_true(test: cst.BaseExpression) -> bool:
    if isinstance(test, cst.Name):
        return test.value == "True"
    return isinstance(test, cst.Integer) and test.value not in ("0",)
