"""The folders a module puts on `sys.path` (trainlint.analysis.search_paths):
only those spelled from `__file__` are known, in the order Python looks in them."""

from __future__ import annotations

import libcst as cst
import pytest

from trainlint.analysis.search_paths import search_paths
from trainlint.project import SearchPaths
from trainlint.semantic import SemanticModel

_HERE = "import os, sys\nhere = os.path.dirname(__file__)\n"


def _paths(source: str) -> SearchPaths:
    return search_paths(SemanticModel("tools/x.py", source, cst.parse_module(source)))


@pytest.mark.parametrize("source, front, back", [
    ("import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'lib'))\n", ("../lib",), ()),
    ("import os.path as osp\nimport sys\nthis_dir = osp.dirname(osp.abspath(__file__))\n"
     "lib = osp.join(this_dir, '..', 'lib')\nif lib not in sys.path:\n    sys.path.insert(0, lib)\n", ("../lib",), ()),
    ("import sys\nfrom pathlib import Path\nsys.path.append(str(Path(__file__).resolve().parent.parent))\n",
     (), ("..",)),
    ("import sys\nfrom pathlib import Path\nROOT = Path(__file__).parent\nsys.path.append(str(ROOT / 'src'))\n",
     (), ("src",)),
    ("import sys, os.path as osp\ndef add_path(p):\n    if p not in sys.path:\n        sys.path.insert(0, p)\n"
     "add_path(osp.join(osp.dirname(__file__), '..', 'lib'))\nadd_path(osp.join(osp.dirname(__file__), '..', 'ext'))\n",
     ("../ext", "../lib"), ()),  # the last one inserted is looked in first
])
def test_a_folder_spelled_from_the_module_file_is_known(source: str, front: tuple[str, ...],
                                                        back: tuple[str, ...]) -> None:
    assert _paths(source) == SearchPaths(front, back)


@pytest.mark.parametrize("calls, front, back", [
    ("sys.path.insert(0, os.path.join(here, 'lib'))\nsys.path.insert(0, os.path.join(here, 'lib_dry'))\n",
     ("lib_dry", "lib"), ()),
    ("sys.path.append(os.path.join(here, 'lib'))\nsys.path.append(os.path.join(here, 'lib_dry'))\n",
     (), ("lib", "lib_dry")),
    ("sys.path.append(os.path.join(here, 'lib'))\nsys.path.insert(0, os.path.join(here, 'lib_dry'))\n",
     ("lib_dry",), ("lib",)),
    ("sys.path.insert(0, os.path.join(here, 'lib'))\nsys.path.insert(0, os.path.join(here, 'lib_dry'))\n"
     "sys.path.insert(0, os.path.join(here, 'lib'))\n", ("lib_dry", "lib"), ()),  # already there: it stays where it is
    ("sys.path.extend([os.path.join(here, 'lib'), os.path.join(here, 'lib_dry')])\n", (), ("lib", "lib_dry")),
    ("sys.path += [os.path.join(here, 'lib')]\nsys.path += (os.path.join(here, 'lib_dry'),)\n", (), ("lib", "lib_dry")),
    ("sys.path[:0] = [os.path.join(here, 'lib'), os.path.join(here, 'lib_dry')]\n", ("lib", "lib_dry"), ()),
    ("sys.path.insert(0, os.path.join(here, 'ext'))\nsys.path[0:0] = [os.path.join(here, 'lib')]\n",
     ("lib", "ext"), ()),
    ("from sys import path\npath.insert(0, os.path.join(here, 'lib'))\n", ("lib",), ()),
    # a loop that leaves sys.path alone
    ("sys.path.insert(0, os.path.join(here, 'lib'))\nfor n in ('A', 'B'):\n    os.environ.setdefault(n, '1')\n",
     ("lib",), ()),
])
def test_folders_are_looked_in_as_python_looks_in_them(calls: str, front: tuple[str, ...],
                                                       back: tuple[str, ...]) -> None:
    assert _paths(_HERE + calls) == SearchPaths(front, back)


@pytest.mark.parametrize("branches, expected", [
    ("if os.environ.get('FULL'):\n    sys.path.insert(0, os.path.join(here, 'lib'))\n"
     "else:\n    sys.path.insert(0, os.path.join(here, 'lib_dry'))\n", SearchPaths()),
    ("if os.environ.get('FULL'):\n    sys.path.insert(0, os.path.join(here, 'lib'))\n"
     "elif os.environ.get('DRY'):\n    sys.path.insert(0, os.path.join(here, 'lib_dry'))\n", SearchPaths()),
    ("if os.name == 'nt':\n    sys.path.insert(0, os.path.join(here, 'lib'))\n"
     "else:\n    sys.path.insert(0, os.path.join(here, 'lib'))\n", SearchPaths(("lib",))),  # the same either way
    ("if __name__ == '__main__':\n    sys.path.insert(0, os.path.join(here, 'lib'))\n", SearchPaths()),
    ("if '__main__' == __name__:\n    sys.path.insert(0, os.path.join(here, 'lib'))\n", SearchPaths()),
    ("if __name__ != '__main__':\n    sys.path.insert(0, os.path.join(here, 'lib'))\n", SearchPaths(("lib",))),
])
def test_a_folder_added_in_one_arm_of_an_if_is_known_only_when_that_arm_always_runs(
        branches: str, expected: SearchPaths) -> None:
    assert _paths(_HERE + branches) == expected


@pytest.mark.parametrize("calls, expected", [
    # a folder not known, looked in before lib/, may hold the module: lib/ is not known either
    ("sys.path.insert(0, os.path.join(here, 'lib'))\nsys.path.insert(0, os.environ['EXTRA'])\n", SearchPaths()),
    ("sys.path.append(os.environ['EXTRA'])\nsys.path.append(os.path.join(here, 'lib'))\n", SearchPaths()),
    ("sys.path.insert(0, os.path.join(here, 'lib'))\nsys.path.append(os.environ['EXTRA'])\n", SearchPaths(("lib",))),
    ("sys.path.insert(1, os.path.join(here, 'lib'))\n", SearchPaths()),  # after the script's folder
    ("sys.path.extend([os.environ['EXTRA'], os.path.join(here, 'lib')])\n", SearchPaths()),
    ("sys.path.extend(os.environ['EXTRA'].split(':'))\nsys.path.append(os.path.join(here, 'lib'))\n", SearchPaths()),
    ("sys.path[:0] = [os.environ['EXTRA'], os.path.join(here, 'lib')]\n", SearchPaths()),
    ("sys.path[1:1] = [os.path.join(here, 'lib')]\n", SearchPaths()),  # after the script's folder
    ("sys.path.insert(0, os.path.join(here, 'lib'))\nsys.path = [os.environ['EXTRA']] + sys.path\n", SearchPaths()),
    ("sys.path.insert(0, os.path.join(here, 'lib'))\nsys.path[:] = [os.environ['EXTRA']]\n", SearchPaths()),
    # `path` of `from sys import path` is sys.path
    ("from sys import path\npath.insert(0, os.path.join(here, 'lib'))\npath[:0] = [os.environ['EXTRA']]\n",
     SearchPaths()),
    # what a loop, `try` or `with` adds runs as many times as it may
    ("sys.path.insert(0, os.path.join(here, 'lib'))\nfor p in [os.environ['EXTRA']]:\n    sys.path.insert(0, p)\n",
     SearchPaths()),
    ("sys.path.insert(0, os.path.join(here, 'lib'))\ntry:\n    import ext\n"
     "except ImportError:\n    sys.path.insert(0, os.environ['EXTRA'])\n", SearchPaths()),
])
def test_what_comes_after_a_folder_not_known_is_not_known(calls: str, expected: SearchPaths) -> None:
    assert _paths(_HERE + calls) == expected


@pytest.mark.parametrize("source", [
    "import sys\nsys.path.insert(0, '../lib')\n",  # the working directory's, not the module's
    "import os, sys\nsys.path.append(os.path.join(os.getcwd(), 'lib'))\n",
    "import os, sys\nd = os.path.dirname(__file__)\nd = os.environ['LIB']\nsys.path.append(d)\n",  # bound twice
    "import os, sys\ndef setup():\n    sys.path.append(os.path.dirname(__file__))\n",  # only if setup() runs
    "import os, sys\nsys.path.append(__file__)\n",  # a file, no folder
    "import os\npaths = []\npaths.append(os.path.dirname(__file__))\n",  # another list
    "import os\npaths = []\npaths.extend([os.path.dirname(__file__)])\npaths += [os.path.dirname(__file__)]\n",
    "import os\npaths = []\npaths[:0] = [os.path.dirname(__file__)]\n",
    _HERE + "sys.path.append(os.path.join(here, 'C:\\\\lib'))\n",  # absolute on Windows
    _HERE + "sys.path.append(os.path.join(here, '~', 'lib'))\n",  # the user's home, once expanded
])
def test_a_folder_not_spelled_from_the_module_file_is_not_known(source: str) -> None:
    assert _paths(source) == SearchPaths()
