"""`evaluating_statement` and `skipped_before` tell whether a call surely runs when its
statement, its loop's iteration or its function's run does: what TL202 asks of a
`losses.clear()` before it takes it for a reset."""

from __future__ import annotations

import libcst as cst
import pytest

from trainlint.analysis.training import evaluating_statement, skipped_before
from trainlint.context import FileContext


def _clear(source: str) -> tuple[FileContext, cst.Call]:
    """The file, and its one `losses.clear()` (`self.losses.clear()`) call."""
    ctx = FileContext("input.py", source, cst.parse_module(source))
    calls = [node for node in ctx.nodes_of(cst.Call)
             if type(node.func) is cst.Attribute and node.func.attr.value == "clear"  # type: ignore[attr-defined]
             and ctx.code(node.func.value).endswith("losses")]  # type: ignore[attr-defined]
    assert len(calls) == 1
    return ctx, calls[0]  # type: ignore[return-value]


@pytest.mark.parametrize("line", [
    "losses.clear()",
    "n = losses.clear()",
    "print(losses.clear())",
    "losses.clear() or print('new step')",
    "print('a') if losses.clear() else None",
    "[x for x in losses.clear() or ()]",  # the first iterable runs once
    "losses.clear() < 1 < 2",
])
def test_a_call_its_statement_always_evaluates(line: str) -> None:
    ctx, call = _clear(line + "\n")
    assert evaluating_statement(ctx, call) is not None


@pytest.mark.parametrize("line", [
    "reset = lambda: losses.clear()",
    "[losses.clear() for _ in range(0)]",
    "[x for x in xs if losses.clear()]",
    "[y for x in xs for y in losses.clear() or ()]",
    "flag and losses.clear()",
    "flag or losses.clear()",
    "losses.clear() if flag else None",
    "None if flag else losses.clear()",
    "0 < 1 < losses.clear()",
    "assert losses.clear() is None",
])
def test_a_call_evaluated_only_some_of_the_time(line: str) -> None:
    ctx, call = _clear(line + "\n")
    assert evaluating_statement(ctx, call) is None


def _loop_and_clear(source: str) -> tuple[FileContext, cst.CSTNode, cst.CSTNode]:
    ctx, call = _clear(source)
    loop = next(node for node in ctx.nodes_of(cst.For))
    return ctx, loop, evaluating_statement(ctx, call)  # type: ignore[return-value]


@pytest.mark.parametrize(("body", "skipped"), [
    ("    if loss > 1:\n        continue\n    losses.clear()\n", True),
    ("    for p in params:\n        if p is None:\n            continue\n    losses.clear()\n", False),
    ("    losses.clear()\n    if loss > 1:\n        continue\n", False),
    ("    if loss > 1:\n        break\n    losses.clear()\n", False),  # no later iteration appends
    ("    for p in params:\n        pass\n    else:\n        continue\n    losses.clear()\n", True),
])
def test_a_continue_of_the_loop_before_the_call_skips_it(body: str, skipped: bool) -> None:
    ctx, loop, statement = _loop_and_clear("for loss in losses:\n" + body)
    assert skipped_before(ctx, statement, loop) is skipped  # type: ignore[arg-type]


def test_a_return_before_the_call_skips_it_in_its_function() -> None:
    ctx, call = _clear("def reset(self, done):\n    if done:\n        return\n    self.losses.clear()\n")
    function = ctx.enclosing_function(call)
    assert skipped_before(ctx, evaluating_statement(ctx, call), function) is True  # type: ignore[arg-type]


@pytest.mark.parametrize(("body", "skipped"), [
    ("    try:\n        step()\n        losses.clear()\n    except RuntimeError:\n        continue\n", True),
    ("    try:\n        step()\n        losses.clear()\n    except RuntimeError:\n        pass\n", True),
    ("    try:\n        step()\n    except RuntimeError: pass\n    else:\n        losses.clear()\n", True),
    ("    try:\n        losses.clear()\n        step()\n    except RuntimeError:\n        continue\n", False),
    ("    try:\n        step()\n        losses.clear()\n    except RuntimeError:\n        log()\n        raise\n",
     False),
    ("    try:\n        step()\n        losses.clear()\n    except RuntimeError:\n        break\n", False),
    ("    try:\n        step()\n        losses.clear()\n    except RuntimeError:\n        sys.exit(1)\n", False),
    ("    try:\n        step()\n    except RuntimeError:\n        continue\n    finally:\n        losses.clear()\n", False),
    ("    try:\n        step()\n        losses.clear()\n    finally:\n        log()\n", False),
    # every arm of the handler leaves, or it ends the program
    ("    try:\n        step()\n        losses.clear()\n    except OSError as e:\n        if bad(e):\n            raise\n"
     "        else:\n            raise RuntimeError() from e\n", False),
    ("    try:\n        step()\n        losses.clear()\n    except OSError:\n        log()\n        os.abort()\n", False),
    # an arm that goes on, a loop that may run out, a `with` that passes
    ("    try:\n        step()\n        losses.clear()\n    except OSError as e:\n        if bad(e):\n            raise\n",
     True),
    ("    try:\n        step()\n        losses.clear()\n    except OSError:\n        for hook in hooks:\n"
     "            hook()\n", True),
    ("    try:\n        step()\n        losses.clear()\n    except OSError:\n        with lock:\n            pass\n",
     True),
    # code it cannot follow, after which the handler may leave: not taken to go on
    ("    try:\n        step()\n        losses.clear()\n    except OSError:\n        try:\n            log()\n"
     "        finally:\n            raise\n", False),
    ("    try:\n        step()\n        losses.clear()\n    except OSError:\n        while True:\n"
     "            retry()\n", False),
    # what comes before the reset in the `try` cannot raise: constants, another reset
    ("    try:\n        total, seen = 0.0, []\n        kept.clear()\n        losses.clear()\n"
     "    except Exception:\n        pass\n", False),
    ("    try:\n        total = total + 1\n        losses.clear()\n    except Exception:\n        pass\n", True),
    # a `break` of a loop inside this one goes on with this iteration
    ("    for attempt in range(3):\n        try:\n            step()\n            losses.clear()\n"
     "        except OSError:\n            break\n", True),
])
def test_an_exception_caught_and_gone_on_from_skips_the_rest_of_the_try(body: str, skipped: bool) -> None:
    ctx, loop, statement = _loop_and_clear("for loss in losses:\n" + body)
    assert skipped_before(ctx, statement, loop) is skipped  # type: ignore[arg-type]


def test_an_exception_caught_and_gone_on_from_skips_the_rest_of_a_method() -> None:
    ctx, call = _clear("def reset(self):\n    try:\n        self.log()\n        self.losses.clear()\n"
                       "    except OSError:\n        pass\n")
    function = ctx.enclosing_function(call)
    assert skipped_before(ctx, evaluating_statement(ctx, call), function) is True  # type: ignore[arg-type]


@pytest.mark.parametrize(("handler", "skipped"), [
    ("return", True),  # ends this run of the method: its caller goes on
    ("raise", False),
])
def test_a_return_from_a_handler_skips_the_rest_of_a_method(handler: str, skipped: bool) -> None:
    ctx, call = _clear("def reset(self):\n    try:\n        self.log()\n        self.losses.clear()\n"
                       f"    except OSError:\n        {handler}\n")
    function = ctx.enclosing_function(call)
    assert skipped_before(ctx, evaluating_statement(ctx, call), function) is skipped  # type: ignore[arg-type]
