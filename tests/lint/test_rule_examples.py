"""Every rule's examples are its unit tests: each bad example yields exactly
the findings marked `# expect:`, each good example none, and a fixable bad
example with an expected fix turns into exactly that text, and a bad example
of a fixable rule written without one is left as it is (the rule offers no fix
there: that is part of what the example shows)."""

from __future__ import annotations

import pytest

from trainlint.registry import all_rules
from trainlint.rule import Example, Rule, expected_marks
from trainlint.testing import found_marks, fixed_source


def _cases(kind: str) -> list[object]:
    cases = []
    for rule in all_rules():
        examples = rule.bad_examples() if kind == "bad" else rule.good
        for index, example in enumerate(examples, start=1):
            cases.append(pytest.param(rule, example, id=f"{rule.code}-{kind}-{index}"))
    return cases


@pytest.mark.parametrize(("rule", "example"), _cases("bad"))
def test_bad_example(rule: type[Rule], example: Example) -> None:
    expected = expected_marks(example.code)
    assert expected, "a bad example must mark its findings with `# expect:`"
    assert found_marks(rule, example.code) == expected


@pytest.mark.parametrize(("rule", "example"), _cases("good"))
def test_good_example(rule: type[Rule], example: str) -> None:
    assert found_marks(rule, example) == set()


def _fix_cases() -> list[object]:
    return [
        pytest.param(rule, example, id=f"{rule.code}-fix-{index}")
        for rule in all_rules()
        for index, example in enumerate(rule.bad_examples(), start=1)
        if example.fixed is not None
    ]


@pytest.mark.parametrize(("rule", "example"), _fix_cases())
def test_fix_example(rule: type[Rule], example: Example) -> None:
    fixed = fixed_source(rule, example.code, unsafe=rule.fix_safety == "unsafe")
    assert fixed == example.fixed
    assert found_marks(rule, fixed) == set(), "the fixed code must lint clean"
    assert fixed_source(rule, fixed, unsafe=True) == fixed, "fixing twice must change nothing"


def _no_fix_cases() -> list[object]:
    return [
        pytest.param(rule, example, id=f"{rule.code}-nofix-{index}")
        for rule in all_rules()
        if rule.fix_safety is not None
        for index, example in enumerate(rule.bad_examples(), start=1)
        if example.fixed is None
    ]


@pytest.mark.parametrize(("rule", "example"), _no_fix_cases())
def test_no_fix_example(rule: type[Rule], example: Example) -> None:
    assert fixed_source(rule, example.code, unsafe=True) == example.code
