"""`always_before` and `reaching` tell which bindings of a variable may give it its
value where it is read: the last one that always runs before the read (a plain
statement of a block around it, the `for` or `with` whose header binds it), those
after it, and, in a loop, those later in the loop that come back to the read
without passing it again."""

from __future__ import annotations

import textwrap
from typing import Callable

import libcst as cst
import pytest

from trainlint.analysis.dataflow import always_before, reaching
from trainlint.context import FileContext


def _model(source: str) -> FileContext:
    source = textwrap.dedent(source)
    return FileContext("t.py", source, cst.parse_module(source))


def _read(ctx: FileContext, statement: str) -> cst.Name:
    """The read of `x` in the statement spelled `statement` (`use(x)`)."""
    call = next(node for node in ctx.nodes_of(cst.Call) if ctx.code(node) == statement)
    return next(node for node in ctx.subtree(call) if type(node) is cst.Name and node.value == "x")


def _bindings(ctx: FileContext) -> list[cst.CSTNode]:
    """The names `x` bound: assignment, loop, walrus and `with` targets, in source order."""
    targets = [target for node in ctx.nodes_of(cst.AssignTarget, cst.For, cst.NamedExpr, cst.AsName)
               for target in [node.target if type(node) is not cst.AsName else node.name]]  # type: ignore[attr-defined]
    named = [target for target in targets if type(target) is cst.Name and target.value == "x"]
    return sorted(named, key=ctx.order_index)


def _found(ctx: FileContext, statement: str, ask: Callable[..., list[cst.CSTNode]]) -> list[int]:
    """The bindings of `x` that `ask` gives for its read in `statement`, by their place
    among all of them in source order."""
    bindings = _bindings(ctx)
    found = ask(ctx, _read(ctx, statement), bindings)
    return [index for index, binding in enumerate(bindings) if binding in found]


@pytest.mark.parametrize("source", [
    # a loop's target is bound before each run of its body
    """
    def f(xs):
        x = None
        for x in xs:
            use(x)
    """,
    # a `with` binds its name before its body, and before what follows it
    """
    def f(opener):
        x = None
        with opener() as x:
            use(x)
    """,
    """
    def f(opener):
        x = None
        with opener() as x:
            pass
        use(x)
    """,
])
def test_a_header_binding_always_runs_before_its_body(source: str) -> None:
    ctx = _model(source)
    assert _found(ctx, "use(x)", always_before) == [0, 1]
    assert _found(ctx, "use(x)", reaching) == [1]


@pytest.mark.parametrize("source", [
    # the `else` of a loop, or after it: the loop may have run no iteration
    """
    def f(xs):
        x = None
        for x in xs:
            pass
        else:
            use(x)
    """,
    # the iterable is read before the loop binds its target
    """
    def f(xs):
        x = xs
        for x in use(x):
            pass
    """,
])
def test_a_loop_target_is_not_always_bound_outside_its_body(source: str) -> None:
    ctx = _model(source)
    assert _found(ctx, "use(x)", always_before) == [0]


@pytest.mark.parametrize("source", [
    # a later item's `__enter__` may raise into an earlier one that suppresses it,
    # skipping the body and the binding
    """
    def f(opener):
        x = None
        with suppress(OSError), opener() as x:
            pass
        use(x)
    """,
    # a walrus bound only when the left operand lets the right one run
    """
    def f(ready):
        x = None
        ok = ready and (x := fetch())
        use(x)
    """,
    # ... or in the arm a condition picks
    """
    def f(ready):
        x = None
        y = (x := fetch()) if ready else None
        use(x)
    """,
    # ... or for each item of a comprehension, which may have none
    """
    def f(items):
        x = None
        ys = [(x := item) for item in items]
        use(x)
    """,
])
def test_a_binding_its_statement_may_skip_does_not_always_run(source: str) -> None:
    ctx = _model(source)
    assert _found(ctx, "use(x)", always_before) == [0]
    assert _found(ctx, "use(x)", reaching) == [0, 1]


@pytest.mark.parametrize("source", [
    # the first item's name is bound once its header ran: nothing before it can suppress
    """
    def f(opener):
        x = None
        with opener() as x, suppress(OSError):
            pass
        use(x)
    """,
    # every item's name is bound in the body: it runs only once every header has
    """
    def f(opener):
        x = None
        with suppress(OSError), opener() as x:
            use(x)
    """,
    # a walrus in a short-circuit's left operand, or a condition's test, always runs
    """
    def f(ready):
        x = None
        ok = (x := fetch()) and ready
        use(x)
    """,
    """
    def f(ready):
        x = None
        y = ready if (x := fetch()) else None
        use(x)
    """,
])
def test_a_binding_its_statement_always_reaches_runs_before(source: str) -> None:
    ctx = _model(source)
    assert _found(ctx, "use(x)", always_before) == [0, 1]
    assert _found(ctx, "use(x)", reaching) == [1]


def test_a_binding_that_reads_itself_in_a_loop_reads_its_value_of_the_pass_before() -> None:
    ctx = _model("""
    def f(parts):
        x = 0
        for part in parts:
            x = use(x) + part
    """)
    assert _found(ctx, "use(x)", always_before) == [0]
    assert _found(ctx, "use(x)", reaching) == [0, 1]


def test_a_later_binding_in_a_loop_is_cut_off_by_an_always_run_binding_inside_it() -> None:
    ctx = _model("""
    def f(steps):
        for step in steps:
            for part in step:
                x = part
                use(x)
            x = step
    """)
    assert _found(ctx, "use(x)", reaching) == [0]


def test_a_later_binding_in_a_loop_reaches_back_when_nothing_in_it_binds_first() -> None:
    ctx = _model("""
    def f(steps, first):
        x = first
        for step in steps:
            for part in step:
                use(x)
            x = step
    """)
    assert _found(ctx, "use(x)", reaching) == [0, 1]


def _captured(ctx: FileContext) -> list[cst.CSTNode]:
    """What a `case` binds `x` to: the `match`'s subject, for a capture of the whole
    subject (the value `Receivers.assigned` gives it), else the captured name."""
    captures = [node for node in ctx.nodes_of(cst.MatchAs, cst.MatchStar)
                if node.name is not None and node.name.value == "x"]  # type: ignore[attr-defined]
    return [ctx.parent(ctx.parent(node)).subject if type(ctx.parent(node)) is cst.MatchCase  # type: ignore[union-attr]
            else node.name for node in captures]  # type: ignore[attr-defined]


@pytest.mark.parametrize(("case", "after"), [
    ("case x:", True),  # irrefutable: the one case always matches and binds `x`
    ("case x if ready:", False),  # no case may match
    ("case SGD() as x:", False),
    ("case [x, *rest]:", False),  # a part of the subject: bound when the pattern matches
])
def test_a_case_capture_always_runs_before_its_body_and_after_the_match_when_sure_to(case: str, after: bool) -> None:
    ctx = _model(f"""
    def f(stage, ready):
        match stage.trainable():
            {case}
                use_in(x)
        use_after(x)
    """)
    captured = _captured(ctx)
    assert always_before(ctx, _read(ctx, "use_in(x)"), captured) == captured
    assert always_before(ctx, _read(ctx, "use_after(x)"), captured) == (captured if after else [])


def test_a_whole_capture_after_other_cases_is_not_sure_to_bind() -> None:
    ctx = _model("""
    def f(stage):
        match stage.trainable():
            case None:
                pass
            case x:
                pass
        use(x)
    """)
    assert always_before(ctx, _read(ctx, "use(x)"), _captured(ctx)) == []


@pytest.mark.parametrize(("cases", "reached"), [
    # another case's body runs only when the capture did not match: it never bound `x`
    (["case [p] as x:", "    pass", "case _:", "    use(x)"], False),
    # a capture whose guard failed has bound `x`, and the next case may run with it
    (["case [p] as x if p:", "    pass", "case _:", "    use(x)"], True),
])
def test_a_whole_capture_reaches_only_the_runs_that_bound_it(cases: list[str], reached: bool) -> None:
    lines = "".join(f"\n            {line}" for line in cases)
    ctx = _model(f"""
    def f(stage):
        x = stage.head()
        match stage.trainable():{lines}
    """)
    initial, captured = _bindings(ctx)[0], _captured(ctx)[0]
    found = reaching(ctx, _read(ctx, "use(x)"), [initial, captured])
    assert found == ([initial, captured] if reached else [initial])


@pytest.mark.parametrize(("body", "reached"), [
    ("return None", False),  # the capture's run never comes past the `match`
    ("pass", True),
])
def test_a_whole_capture_reaches_past_the_match_only_when_its_case_may_go_on(body: str, reached: bool) -> None:
    ctx = _model(f"""
    def f(stage):
        x = stage.head()
        match stage.trainable():
            case [p, q] as x:
                {body}
        use(x)
    """)
    initial, captured = _bindings(ctx)[0], _captured(ctx)[0]
    found = reaching(ctx, _read(ctx, "use(x)"), [initial, captured])
    assert found == ([initial, captured] if reached else [initial])
