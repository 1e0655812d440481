"""A function that returns a value computed under float16 autocast on a flag path only
(`Summary.float16_when`): a call gets one where its constants, or the defaults it
leaves, take that path (`Summary.float16_for`), not where a flag holds what it cannot tell."""

from __future__ import annotations

import pytest

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
