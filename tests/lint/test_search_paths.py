"""The folders a module puts on `sys.path` (trainlint.analysis.search_paths):
only those spelled from `__file__` are known."""

from __future__ import annotations

import libcst as cst
import pytest

from trainlint.analysis.search_paths import search_paths
from trainlint.semantic import SemanticModel


def _paths(source: str) -> tuple[str, ...]:
    return search_paths(SemanticModel("tools/x.py", source, cst.parse_module(source)))


@pytest.mark.parametrize("source, expected", [
    ("import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'lib'))\n", ("../lib",)),
    ("import os.path as osp\nimport sys\nthis_dir = osp.dirname(osp.abspath(__file__))\n"
     "lib = osp.join(this_dir, '..', 'lib')\nif lib not in sys.path:\n    sys.path.insert(0, lib)\n", ("../lib",)),
    ("import sys\nfrom pathlib import Path\nsys.path.append(str(Path(__file__).resolve().parent.parent))\n", ("..",)),
    ("import sys\nfrom pathlib import Path\nROOT = Path(__file__).parent\nsys.path.append(str(ROOT / 'src'))\n", ("src",)),
    ("import sys, os.path as osp\ndef add_path(p):\n    if p not in sys.path:\n        sys.path.insert(0, p)\n"
     "add_path(osp.join(osp.dirname(__file__), '..', 'lib'))\nadd_path(osp.join(osp.dirname(__file__), '..', 'ext'))\n",
     ("../lib", "../ext")),
])
def test_a_folder_spelled_from_the_module_file_is_known(source: str, expected: tuple[str, ...]) -> None:
    assert _paths(source) == expected


@pytest.mark.parametrize("source", [
    "import sys\nsys.path.insert(0, '../lib')\n",  # the working directory's, not the module's
    "import os, sys\nsys.path.append(os.path.join(os.getcwd(), 'lib'))\n",
    "import os, sys\nd = os.path.dirname(__file__)\nd = os.environ['LIB']\nsys.path.append(d)\n",  # bound twice
    "import os, sys\ndef setup():\n    sys.path.append(os.path.dirname(__file__))\n",  # only if setup() runs
    "import os, sys\nsys.path.append(__file__)\n",  # a file, no folder
    "import os\npaths = []\npaths.append(os.path.dirname(__file__))\n",  # another list
])
def test_a_folder_not_spelled_from_the_module_file_is_not_known(source: str) -> None:
    assert _paths(source) == ()
