"""`names_tested` lists the names whose constants `truth` reads in an `if`'s test: the
parameters a call that fixes them may send down one branch (phase flags), not every
name the test mentions (`x > threshold`, `isinstance(train, bool)`)."""

from __future__ import annotations

import libcst as cst
import pytest

from trainlint.analysis.phases import names_tested, truth

# what a call may fix a flag to, as `constant_text` writes it
_CONSTANTS = ("True", "False", "None", "0", "'train'", "'eval'")

_CASES = [
    ("train", {"train"}),
    ("not train", {"train"}),
    ("train and x", {"train", "x"}),
    ("not (train or augment)", {"train", "augment"}),
    ("phase == 'train'", {"phase"}),
    ("'eval' != mode", {"mode"}),
    ("is_train is True", {"is_train"}),
    ("optimizer is not None", {"optimizer"}),
    ("None is scheduler", {"scheduler"}),
    ("phase is 'train'", set()),
    ("train and x > threshold", {"train"}),
    ("x > threshold", set()),
    ("len(batch) < n", set()),
    ("isinstance(train, bool)", set()),
    ("train == other", set()),
    ("self.training", set()),
    ("0 < step < total", set()),
    ("True", set()),
]


def _names(expr: cst.BaseExpression) -> set[str]:
    found: set[str] = set()

    class Names(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            found.add(node.value)

    expr.visit(Names())
    return found - {"True", "False", "None"}


@pytest.mark.parametrize(("test", "expected"), _CASES, ids=[case[0] for case in _CASES])
def test_tested_names_are_the_names_truth_reads(test: str, expected: set[str]) -> None:
    expr = cst.parse_expression(test)
    assert names_tested(expr) == expected
    for name in _names(expr):
        read = any(truth(expr, {name: constant}) is not None for constant in _CONSTANTS)
        assert read is (name in expected), name
