"""`kept_past_iteration` tells whether a list bound anew each iteration of a loop, or
anything built from it, may be read once that iteration is over; it follows the
bindings in their order, and answers "kept" wherever it cannot tell."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from trainlint.analysis.accumulators import kept_past_iteration
from trainlint.context import FileContext

_HEAD = """\
def train(loader, parts, meter, history, flag):
    for batch in loader:
        losses = []
        for part in batch.chunk(parts):
            loss = part.sum()
            losses.append(loss)
"""


def _kept(tail: str, head: str = _HEAD) -> bool:
    source = head + textwrap.indent(textwrap.dedent(tail), "        ")
    ctx = FileContext("t.py", source, cst.parse_module(source))
    loop = next(node for node in ctx.nodes_of(cst.For) if type(node.iter) is cst.Name)  # type: ignore[attr-defined]
    filling = {node for node in ctx.nodes_of(cst.Call) if ctx.code(node) == "losses.append(loss)"}
    return kept_past_iteration(ctx, loop, "losses", filling)  # type: ignore[arg-type]


@pytest.mark.parametrize("tail", [
    "print(sum(losses).item())\n",
    "meter.update(len(losses))\n",
    # made a number by a later binding before the meter gets it
    "total = sum(losses)\ntotal.div_(parts)\ntotal = total.item()\nmeter.update(total)\n",
])
def test_what_is_read_within_the_iteration_is_not_kept(tail: str) -> None:
    assert not _kept(tail)


# a total and a last value carried from one iteration to the next
_CARRYING = _HEAD.replace("    for batch in loader:\n", "    total = 0\n    last = None\n    for batch in loader:\n", 1)


@pytest.mark.parametrize("tail", [
    "total = total + sum(losses)\n",
    "total = sum(losses) + total\n",
    "total = total + losses[-1]\n",
    "total = max(total, sum(losses))\n",
    "total: float = total + sum(losses)\n",
    "if flag:\n    total = total + sum(losses)\n",
    "s = sum(losses)\ntotal = total + s\n",
    "last = losses[-1] if last is None else last\n",
])
def test_what_a_binding_reads_of_its_own_name_is_of_the_iteration_before(tail: str) -> None:
    assert _kept(tail, _CARRYING)


@pytest.mark.parametrize("tail", [
    "total = total + sum(losses).item()\n",
    "s = sum(losses)\ntotal = total + s.item()\n",
])
def test_a_number_carried_to_the_next_iteration_is_not_kept(tail: str) -> None:
    assert not _kept(tail, _CARRYING)


@pytest.mark.parametrize("tail", [
    # handed to a meter before the binding that makes it a number
    "total = sum(losses)\nmeter.update(total)\ntotal = total.item()\n",
    "history.append(sum(losses))\n",
    "meter.last = sum(losses)\n",
    # bound in one branch: a later iteration may read the sum of an earlier one
    "if flag:\n    total = sum(losses)\nprint(total)\n",
    # read by a function that may run after the iteration
    "def total():\n    return sum(losses)\nmeter.register(total)\n",
    "last = (kept := sum(losses))\n",
    # a comprehension's target is read in no order: whatever it holds goes to the history
    "[history.append(l) for l in losses]\n",
])
def test_what_may_be_read_after_the_iteration_is_kept(tail: str) -> None:
    assert _kept(tail)


def test_a_read_before_the_list_is_bound_anew_reads_the_earlier_iterations_list() -> None:
    head = _HEAD.replace("        losses = []\n", "        previous = losses\n        losses = []\n", 1)
    assert _kept("print(sum(previous).item())\n", head)


def test_a_list_bound_to_what_may_be_shared_is_kept() -> None:
    assert _kept("print(sum(losses).item())\n", _HEAD.replace("losses = []", "losses = history", 1))
