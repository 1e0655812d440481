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
branch, so A-without-B paths that cannot happen are not explored. A true `and`
chain decides its operands too: after the body of `if clip and not deepspeed:`
a later `if deepspeed:` is skipped.

Given `events`, the nodes its transfer can react to, a flow skips everything
else (see `trainlint.analysis.flowgraph`); `transfer` is called once per distinct
(node, facts) pair: paths that differ only in what they assumed share it.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import libcst as cst

from trainlint.analysis.flowgraph import Block, Branch, EventFilter, Events, Exit, FlowGraph, Loop, Match, Op, Program, Step, Try
from trainlint.semantic import SemanticModel

Facts = frozenset
Transfer = Callable[[Facts, cst.CSTNode], Facts]
_MAX_PATHS = 64
# distinct fact sets past which a body is not analysed further: independent `if`s each
# doubling them (a sampling loop of twenty optional steps) would take time and memory
# exponential in their number
_MAX_FACT_SETS = 512
_MAX_LOOP_ROUNDS = 4


class Path(NamedTuple):
    facts: Facts
    assumptions: frozenset[tuple[str, bool]] = frozenset()


Paths = frozenset[Path]


class Flow:
    """Forward analysis of one body. `transfer` sees each event (a Call, an
    Assign, AugAssign, AnnAssign or Del node) with the facts of one path and
    returns the facts after it. `loop_back` maps the facts that flow from the
    end of a loop body back to its start (rules about "the same iteration"
    clear their facts there). `events`, when given, says which nodes
    `transfer` can react to at all (it must accept every such node); `program`
    shares the pruned bodies between flows of one analysis."""

    def __init__(
        self,
        model: SemanticModel,
        transfer: Transfer,
        loop_back: Callable[[Facts], Facts] | None = None,
        loop_exit: Callable[[cst.For | cst.While, Facts], Facts] | None = None,
        events: EventFilter | None = None,
        program: Program | None = None,
    ) -> None:
        self.transfer = transfer
        self.loop_back = loop_back or (lambda facts: facts)
        # maps the facts of paths leaving a loop (None: unchanged)
        self.loop_exit = loop_exit
        keep_loops = loop_back is not None or loop_exit is not None
        self.program = program or model.shared(FlowGraph).program(events, keep_loops, through_calls=False)
        self.graph = self.program.graph
        # paths that left the body by `return`, with the facts they had
        self.returned: set[Path] = set()
        self._loops: list[tuple[set[Path], set[Path]]] = []  # (breaks, continues)
        # condition text -> the names it reads, or None when it calls something
        self._condition_names: dict[str, frozenset[str] | None] = {}
        # condition text of a true `and` chain -> what it says of each operand
        self._implied: dict[str, frozenset[tuple[str, bool]]] = {}
        self._answers: dict[tuple[int, Facts], Facts] = {}  # by the node's id(): its __hash__ is a Python call

    def run(self, body: cst.BaseSuite | cst.Module, facts: Facts = frozenset()) -> Paths:
        """Facts of every path that reaches the end of `body` (a function's
        body, or a module's top-level statements); none when the paths grow
        past `_MAX_FACT_SETS` (what the transfer saw until then stands)."""
        try:
            return self._block(self.program.body(body), frozenset({Path(facts)}))
        except _TooManyPaths:
            return frozenset()

    def run_repeated(self, node: cst.CSTNode, body: cst.BaseSuite, facts: Facts = frozenset()) -> Paths:
        """`run(body)` for the body of `node`, a loop or a function run on each of its
        iterations, iteration after iteration: the facts of paths that reach its end
        or `continue` start it again, until they stop changing. Facts flow from a late
        event of one iteration to an early one of the next (a clear at the end of the
        body comes before the next iteration's step). The paths that `break`."""
        loop = Loop(node, (), self.program.body(body), None, True, False)  # type: ignore[arg-type]
        try:
            return self._loop(loop, frozenset({Path(facts)}))
        except _TooManyPaths:
            return frozenset()

    def run_if_events(self, body: cst.BaseSuite | cst.Module) -> None:
        """`run(body)` for a rule that reads only what its transfer saw: a
        body without events, whose flow would call it nowhere, is skipped."""
        if self.program.holds_events(body):
            self.run(body)

    # -- operations ----------------------------------------------------------
    def _block(self, block: Block, paths: Paths) -> Paths:
        for op in block:
            if not paths:
                break
            paths = self._op(op, paths)
        return paths

    def _op(self, op: Op, paths: Paths) -> Paths:
        kind = type(op)
        if kind is Step:
            return self._events(op.events, paths)  # type: ignore[union-attr]
        if kind is Branch:
            return self._if(op, paths)  # type: ignore[arg-type]
        if kind is Loop:
            return self._loop(op, paths)  # type: ignore[arg-type]
        if kind is Exit:
            return self._exit(op, paths)  # type: ignore[arg-type]
        if kind is Try:
            return self._try(op, paths)  # type: ignore[arg-type]
        match: Match = op  # type: ignore[assignment]
        paths = self._events(match.subject, paths)
        out: set[Path] = set()
        for case in match.cases:
            out |= self._block(case, paths)
        # no case may match, unless the last one takes anything (`case _:`)
        return _limit(out if match.exhaustive else out | paths)

    def _exit(self, op: Exit, paths: Paths) -> Paths:
        if op.kind == "return":
            self.returned |= self._events(op.events, paths)
        elif op.kind == "raise":
            self._events(op.events, paths)
        elif self._loops:
            breaks, continues = self._loops[-1]
            (breaks if op.kind == "break" else continues).update(paths)
        return frozenset()

    def _if(self, branch: Branch, paths: Paths) -> Paths:
        paths = self._events(branch.test, paths)
        condition = self.graph.condition(branch.condition)
        key, polarity = condition.key, condition.polarity
        self._condition_names.setdefault(key, condition.names)
        implied = self.graph.conjuncts(branch.condition)  # only an `and` chain, never negated, has any
        if implied:
            self._implied.setdefault(key, implied)
        taken: set[Path] = set()
        skipped: set[Path] = set()
        taken_key, skipped_key = (key, polarity), (key, not polarity)
        for path in paths:
            # a path never assumes both values of one condition, nor, after a
            # true `a and not b`, another value of `a` or of `b`
            if taken_key in path.assumptions or self._implies(path, taken_key):
                taken.add(path)
            elif skipped_key in path.assumptions or self._implies(path, skipped_key):
                skipped.add(path)
            else:
                taken.add(Path(path.facts, path.assumptions | {taken_key}))
                skipped.add(Path(path.facts, path.assumptions | {skipped_key}))
        out = set(self._block(branch.body, frozenset(taken)))
        if isinstance(branch.orelse, Branch):
            out |= self._if(branch.orelse, frozenset(skipped))
        elif branch.orelse is not None:
            out |= self._block(branch.orelse, frozenset(skipped))
        else:
            out |= skipped
        return _limit(_merge_decided(out, key))

    def _loop(self, loop: Loop, paths: Paths) -> Paths:
        paths = self._events(loop.head, paths)
        entry = paths
        breaks: set[Path] = set()
        head: set[Path] = set(paths)
        ends: set[Path] = set()
        invariant = self._invariant_conditions(loop.node)
        outer = frozenset(key for path in entry for key, _ in path.assumptions)  # decided before the loop
        for _ in range(_MAX_LOOP_ROUNDS):
            continues: set[Path] = set()
            self._loops.append((breaks, continues))
            ends = set(self._block(loop.body, frozenset(head)))
            self._loops.pop()
            back = {
                Path(self.loop_back(p.facts), _keep(p.assumptions, outer, invariant))
                for p in ends | continues
            }
            if back <= head:
                break
            head = set(_limit(frozenset(head | back)))
        if loop.infinite:
            exits = set()
        elif loop.runs_once:  # every way out went through the body (the last round's `continue`s too)
            exits = ends | continues
        else:
            exits = set(entry) | ends
        if loop.orelse is not None and exits:
            exits = set(self._block(loop.orelse, frozenset(exits)))
        out = _limit(frozenset(exits | breaks))
        if self.loop_exit is None:
            return out
        return frozenset(Path(self.loop_exit(loop.node, p.facts), p.assumptions) for p in out)

    def _try(self, attempt: Try, paths: Paths) -> Paths:
        body_out = self._block(attempt.body, paths)
        out: set[Path] = set()
        handler_in = _limit(paths | body_out)
        for handler in attempt.handlers:
            out |= self._block(handler, handler_in)
        if attempt.orelse is not None:
            body_out = self._block(attempt.orelse, body_out)
        out |= body_out
        if attempt.final is not None:
            out = set(self._block(attempt.final, frozenset(out)))
        return _limit(frozenset(out))

    # -- events --------------------------------------------------------------
    def _events(self, events: Events, paths: Paths) -> Paths:
        for node in events:
            paths = self._apply(node, paths)
        return paths

    def _apply(self, node: cst.CSTNode, paths: Paths) -> Paths:
        answers = self._answers
        node_id = id(node)
        out = set()
        for path in paths:
            key = (node_id, path.facts)
            facts = answers.get(key)
            if facts is None:
                facts = answers[key] = self.transfer(path.facts, node)
            out.add(path if facts is path.facts else Path(facts, path.assumptions))
        return frozenset(out)

    def _implies(self, path: Path, assumption: tuple[str, bool]) -> bool:
        """`assumption` follows from an `and` chain the path took as true."""
        implied = self._implied
        return bool(implied) and any(
            value and assumption in implied.get(key, ()) for key, value in path.assumptions)

    def _invariant_conditions(self, loop: cst.For | cst.While) -> Callable[[str], bool]:
        """A test over names the loop never assigns (`if self.use_amp:`), with
        no call in it, has the same value on every iteration."""
        assigned = self.graph.assigned(loop)

        def invariant(key: str) -> bool:
            names = self._condition_names.get(key)
            return names is not None and "*" not in assigned and not names & assigned

        return invariant


def _keep(
    assumptions: frozenset[tuple[str, bool]], outer: frozenset[str], invariant: Callable[[str], bool]
) -> frozenset[tuple[str, bool]]:
    """Conditions decided inside a loop body may change by the next iteration,
    unless they were decided before it (`outer`) or nothing in the loop can
    change them."""
    return frozenset(a for a in assumptions if a[0] in outer or invariant(a[0]))


def _merge_decided(paths: set[Path], key: str) -> set[Path]:
    """Two paths that differ only in the value they assumed for `key` are one
    path that assumes nothing about it: together they stand for the same
    runs. Without this, every `if` whose branches end with the same facts
    doubles the paths until `_limit` drops what all of them assumed."""
    decided = frozenset({(key, True), (key, False)})
    out: set[Path] = set()
    seen: dict[tuple[Facts, frozenset[tuple[str, bool]]], Path] = {}  # (facts, other assumptions) -> first path
    for path in paths:
        assumptions = path.assumptions
        if assumptions.isdisjoint(decided):
            out.add(path)
            continue
        rest = assumptions - decided
        first = seen.setdefault((path.facts, rest), path)
        if first is path:
            out.add(path)
        elif first in out:  # its twin assumed the other value
            out.discard(first)
            out.add(Path(path.facts, rest))
    return out


class _TooManyPaths(Exception):
    """The paths of a body grew past what an analysis can follow."""


def _limit(paths: frozenset[Path] | set[Path]) -> Paths:
    if len(paths) <= _MAX_PATHS:
        return frozenset(paths)
    merged = frozenset({Path(p.facts) for p in paths})
    if len(merged) > _MAX_FACT_SETS:
        raise _TooManyPaths
    return merged
