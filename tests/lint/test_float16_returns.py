"""A function that returns a value computed under float16 autocast on a flag path only
(`Summary.float16_when`): a call gets one where its constants, or the defaults it
leaves, take that path (`Summary.float16_for`), not where a flag holds what it cannot tell."""

from __future__ import annotations

import libcst as cst
import pytest

from trainlint.analysis import summarize
from trainlint.analysis.summarize import FileSummaries
from trainlint.context import FileContext
from trainlint.summaries import Given, Summary

_LOSS_STEP = Summary(params=("unet", "batch", "mixed_precision"),
                     float16_when=((("mixed_precision", True, "False"),),))


@pytest.mark.parametrize("given, float16", [
    ((("mixed_precision", "", "True"),), True),
    ((("#0", "", ""), ("#1", "", ""), ("#2", "", "1")), True),
    ((("mixed_precision", "", "False"),), False),
    ((("#0", "", ""), ("#1", "", "")), False),  # left to its default, False
    ((("mixed_precision", "", ""),), False),  # a value of the caller's: not known
    ((("*", "", ""),), False),  # `**kwargs` may hold anything
])
def test_a_float16_path_counts_for_the_calls_that_take_it(given: Given, float16: bool) -> None:
    assert _LOSS_STEP.float16_for(given) is float16


def test_a_float16_path_is_read_back_as_written() -> None:
    assert Summary.from_json(_LOSS_STEP.to_json()) == _LOSS_STEP


def test_a_long_chain_from_a_float16_name_is_followed_in_linear_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Assignments written above the ones they read (`v2 = v1 * 2` above `v1 = v0 * 2`)
    carry the float16 value one assignment per scan of them all: the names each step
    gains are followed instead, so the work grows with the assignments, not their square."""
    length = 1000
    chain = [f"    v{i} = v{i - 1} * 2 + x\n" for i in range(length, 0, -1)]
    source = ("import torch\n\n\ndef step(model, x):\n    with torch.autocast('cuda'):\n        v0 = model(x)\n"
              + "".join(chain) + f"    return v{length}\n")
    calls = 0
    bound_by = summarize._bound_by

    def counted(node: cst.CSTNode) -> set[str]:
        nonlocal calls
        calls += 1
        return bound_by(node)

    monkeypatch.setattr(summarize, "_bound_by", counted)
    summaries = FileSummaries(FileContext("input.py", source, cst.parse_module(source)))
    assert [summary.returns_float16 for summary in summaries.open.values()] == [True]
    assert calls < 5 * length
