"""The example at the top of each rule's docs (`trainlint explain`, docs/rules/) is
a program a user can paste and lint: the rule flags it, and its "Use instead" is
clean. An example written as a fragment, missing the import or the optimizer
the rule needs to know what it reads, would teach that the rule misses it."""

from __future__ import annotations

import re

import pytest

from trainlint.docs import sections
from trainlint.registry import all_rules
from trainlint.testing import findings_of

_CODE = re.compile(r"```python\n(.*?)```", re.S)
RULES = [rule for rule in all_rules() if "Example" in sections(rule)]


def _program(rule: type, heading: str) -> str | None:
    match = _CODE.search(sections(rule).get(heading, ""))
    return match.group(1) if match else None


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.code)
def test_the_docs_example_is_flagged_and_its_replacement_is_not(rule: type) -> None:
    example = _program(rule, "Example")
    assert example is not None
    assert findings_of(rule, example), f"{rule.code}'s docs example is not flagged when linted on its own"
    instead = _program(rule, "Use instead")
    if instead is not None:
        assert not findings_of(rule, instead), f"{rule.code}'s 'Use instead' is flagged"
