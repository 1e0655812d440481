"""Where a fix's `import X` goes: after the module docstring and every
`from __future__` import (Python refuses a `__future__` import after any other
statement), and, when the fix asks for it (`RequiredImport`), even where the
module already imports X under a condition or after the code that needs it."""

from __future__ import annotations

import libcst as cst
import pytest

from trainlint.fixes import RequiredImport, add_imports, apply_fixes
from trainlint.rule import Fix

PLACED = [
    ("from __future__ import annotations; import os\nx = os.sep\n",
     "from __future__ import annotations; import os\nimport torch\nx = os.sep\n"),
    ('"""Doc."""\nfrom __future__ import annotations\nfrom __future__ import division; x = 1\ny = 2\n',
     '"""Doc."""\nfrom __future__ import annotations\nfrom __future__ import division; x = 1\nimport torch\ny = 2\n'),
    ('"""Doc."""; import os\ny = 2\n', '"""Doc."""; import os\nimport torch\ny = 2\n'),
    ("# a comment\n\nx = 1\n", "# a comment\n\nimport torch\nx = 1\n"),
]


@pytest.mark.parametrize(("source", "expected"), PLACED)
def test_the_import_goes_after_the_docstring_and_future_imports(source: str, expected: str) -> None:
    fixed = add_imports(cst.parse_module(source), ["torch"]).code
    assert fixed == expected
    compile(fixed, "fixed.py", "exec")


CONDITIONAL = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import torch\nx = 1\n"


def test_a_plain_import_is_not_added_where_the_module_binds_the_name() -> None:
    assert add_imports(cst.parse_module(CONDITIONAL), ["torch"]).code == CONDITIONAL


def test_a_required_import_is_added_even_where_the_module_binds_the_name() -> None:
    assert add_imports(cst.parse_module(CONDITIONAL), [RequiredImport("torch")]).code == "import torch\n" + CONDITIONAL


def test_two_fixes_asking_for_one_import_add_it_once_required_or_not() -> None:
    module = cst.parse_module(CONDITIONAL)
    fixes = [Fix({}, imports=("torch",)), Fix({}, imports=(RequiredImport("torch"),))]
    assert apply_fixes(module, fixes) == "import torch\n" + CONDITIONAL
