"""What a `try` does with an exception: how a handler's block may end, and which
statements of a `try` body may raise at all. Each answer is what the code surely
shows; what it cannot follow (a nested `try`, how a loop's body ends) is reported as
unknown, so that a rule that needs a handler to go on stays silent."""

from __future__ import annotations

from typing import Sequence

import libcst as cst

from trainlint.analysis.flowgraph import always_true
from trainlint.analysis.scopes import assigned_parts, assignment_targets, dotted_name

# how a block may end (see `endings`)
ON = "on"  # past its last statement
CONTINUE = "continue"
BREAK = "break"
RETURN = "return"
RAISE = "raise"  # also a call that ends the program
UNKNOWN = "unknown"  # a statement the code cannot follow may end it

# calls that end the program: a handler ending with one goes on with nothing
_EXITS = frozenset({"sys.exit", "exit", "quit", "os._exit", "os.abort"})
_JUMPS = {cst.Continue: CONTINUE, cst.Break: BREAK, cst.Return: RETURN, cst.Raise: RAISE}


def falls_through(handler: cst.ExceptHandler | cst.ExceptStarHandler) -> bool:
    """`handler` surely may end by going on with what follows its `try` (`pass`, `log(e)`,
    an `if` one arm of which raises), not only by `continue`, by leaving, or in code it
    cannot follow."""
    return ON in endings(handler.body)


def endings(block: cst.BaseSuite | cst.Else) -> frozenset[str]:
    """The ways a run of `block` may end (`ON`, `CONTINUE`, `BREAK`, `RETURN`, `RAISE`,
    `UNKNOWN`): an `if` may end as either arm (or go on, without `else:`), a `with` as its
    body, a loop as it runs out (see `_loop_endings`); a statement that ends every run
    hides what follows it, one the code cannot follow (`try`, `match`) ends it as `UNKNOWN`."""
    return _sequence(block.body if type(block) is not cst.Else else block.body.body)  # type: ignore[union-attr]


def _sequence(statements: Sequence[cst.CSTNode]) -> frozenset[str]:
    found: set[str] = set()
    for statement in statements:
        ends = _statement_endings(statement)
        found |= ends - {ON}
        if ON not in ends:
            return frozenset(found)
    return frozenset(found | {ON})


def _statement_endings(statement: cst.CSTNode) -> frozenset[str]:
    kind = type(statement)
    if kind in (cst.SimpleStatementLine, cst.SimpleStatementSuite):
        return _sequence(statement.body)  # type: ignore[attr-defined]
    if kind in _JUMPS:
        return frozenset({_JUMPS[kind]})
    if kind is cst.Expr and type(statement.value) is cst.Call \
            and dotted_name(statement.value.func) in _EXITS:  # type: ignore[attr-defined]
        return frozenset({RAISE})
    if kind is cst.If:
        orelse = statement.orelse  # type: ignore[attr-defined]
        rest = frozenset({ON}) if orelse is None else (
            endings(orelse) if type(orelse) is cst.Else else _statement_endings(orelse))
        return endings(statement.body) | rest  # type: ignore[attr-defined]
    if kind is cst.With:
        return endings(statement.body)  # type: ignore[attr-defined]
    if kind in (cst.For, cst.While):
        return _loop_endings(statement)  # type: ignore[arg-type]
    if isinstance(statement, cst.BaseSmallStatement):
        return frozenset({ON})
    return frozenset({UNKNOWN})


def _loop_endings(loop: cst.For | cst.While) -> frozenset[str]:
    """A loop may end when its iterable runs out or its test turns false (not
    `while True:`, `while 1:`), then as its `else:`; how its body ends it (`break`, `return`) is not
    followed."""
    forever = type(loop) is cst.While and always_true(loop.test)
    done = frozenset() if forever else frozenset({ON}) if loop.orelse is None else endings(loop.orelse)
    return done | {UNKNOWN}


def may_raise(statement: cst.CSTNode) -> bool:
    """`statement` may raise: anything but `pass`, names (`self.total`) given constants,
    names or displays of such (`total, losses = 0.0, []`, `(0, 0.0)`), or a container
    emptied (`losses.clear()`, which the code takes for a reset of a list)."""
    kind = type(statement)
    if kind in (cst.SimpleStatementLine, cst.SimpleStatementSuite):
        return any(may_raise(small) for small in statement.body)  # type: ignore[attr-defined]
    if kind in (cst.Assign, cst.AnnAssign) and statement.value is not None:  # type: ignore[attr-defined]
        return not _plain_assignment(statement)  # type: ignore[arg-type]
    if kind is cst.Expr:
        return not _emptied(statement.value)  # type: ignore[attr-defined]
    return kind not in (cst.Pass, cst.Global, cst.Nonlocal)


def _plain_assignment(statement: cst.Assign | cst.AnnAssign) -> bool:
    """Every name `statement` binds is given a plain value (see `_plain`)."""
    targets = assignment_targets(statement)
    value: cst.BaseExpression = statement.value  # type: ignore[assignment]
    return all(dotted_name(bound) is not None and part is not None and _plain(part)
               for target in targets for bound, part in assigned_parts(target, value))


def _emptied(value: cst.BaseExpression) -> bool:
    """`value` is `name.clear()` (`self.losses.clear()`)."""
    func = value.func if type(value) is cst.Call and not value.args else None
    return type(func) is cst.Attribute and func.attr.value == "clear" and dotted_name(func.value) is not None


def _plain(value: cst.BaseExpression) -> bool:
    """`value` is read without running code of any object: a constant, a name, a
    display of such (`[]`, `(0, 0.0)`)."""
    kind = type(value)
    if kind in (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.Name):
        return True
    if kind is cst.UnaryOperation:
        return type(value.expression) in (cst.Integer, cst.Float)  # type: ignore[attr-defined]
    if kind in (cst.List, cst.Tuple, cst.Set):
        return all(type(e) is cst.Element and _plain(e.value) for e in value.elements)  # type: ignore[attr-defined]
    if kind is cst.Dict:
        return not value.elements  # type: ignore[attr-defined]
    return False
