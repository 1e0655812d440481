"""The text screen for imports (`trainlint.imports`): every spelling of an
import is found, and a module path reaches the files the project could
resolve it to, a package standing for every file below it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from trainlint.imports import ImportGraph, imported_files, imported_modules


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("import utils\n", {"utils"}),
        ("import a.b as c, d\n", {"a.b", "d"}),
        ("from .engine import (train,\n    evaluate)\n", {".engine"}),
        ("from . import helpers\n", {"."}),
        ("from .import helpers\n", {"."}),
        ("from ..models import *\n", {"..models"}),
        ("import os; from .x import y\n", {"os", ".x"}),
        ("if fast: import speedups\n", {"speedups"}),
        ("def f():\n    from pkg.sub import g\n    return g()\n", {"pkg.sub"}),
        ("from pkg \\\n    import thing\n", {"pkg"}),
        ("try:\n    import a\nexcept ImportError:\n    import b as a\n", {"a", "b"}),
    ],
)
def test_every_spelling_of_an_import_is_found(text: str, expected: set[str]) -> None:
    assert expected <= imported_modules(text)


def test_words_that_only_look_like_imports_add_nothing() -> None:
    assert imported_modules("important = reimport(transfrom)\nx = 'import'\n") == set()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name in ("train.py", "utils.py", "pkg/__init__.py", "pkg/sub/deep.py", "src/lib/core.py", "other/x.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("", encoding="utf-8")
    return tmp_path


def _graph(tree: Path, members: list[str]) -> ImportGraph:
    files = [str(p) for p in tree.rglob("*.py")]
    return ImportGraph(str(tree), files, [str(tree / m) for m in members])


@pytest.mark.parametrize(
    ("importer", "text", "reached", "not_reached"),
    [
        ("train.py", "import utils\n", "utils.py", "other/x.py"),
        ("train.py", "import pkg\n", "pkg/sub/deep.py", "utils.py"),  # pkg.sub.deep.f() needs no import of its own
        ("pkg/sub/deep.py", "from .. import tools\n", "pkg/__init__.py", "train.py"),
        ("src/lib/core.py", "import utils\n", "utils.py", "pkg/__init__.py"),  # a folder above, up to the root
        ("other/x.py", "from pkg.sub import deep\n", "pkg/sub/deep.py", "other/x.py"),
    ],
)
def test_a_module_path_reaches_the_files_it_can_resolve_to(
    tree: Path, importer: str, text: str, reached: str, not_reached: str
) -> None:
    reach = _graph(tree, []).reach(str(tree / importer), text)
    assert reach.covers(os.path.abspath(tree / reached))
    assert not reach.covers(os.path.abspath(tree / not_reached))


def test_a_file_imports_members_only_through_what_it_reaches(tree: Path) -> None:
    graph = _graph(tree, ["pkg/sub/deep.py"])
    assert graph.imports_members(graph.reach(str(tree / "train.py"), "import pkg\n"))
    assert not graph.imports_members(graph.reach(str(tree / "train.py"), "import utils\nimport torch\n"))


def test_a_file_alone_reads_what_it_imports_and_what_a_package_reexports_it_from(tmp_path: Path) -> None:
    """The context of a file linted alone: the modules its imports name, and in a
    package's `__init__.py` only the imports of the names taken from it, then
    what those modules import in turn; not what `if TYPE_CHECKING:` imports."""
    files = {
        "train.py": "from pkg import helper_a\nimport engine\nfrom typing import TYPE_CHECKING\n"
                    "if TYPE_CHECKING:\n    import typed_only\n",
        "pkg/__init__.py": "from .a import helper_a\nfrom .b import helper_b\n",
        "pkg/a.py": "import deep\n",
        "pkg/b.py": "",
        "engine.py": "import deep\n",
        "deep.py": "",
        "typed_only.py": "",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    candidates = [str(tmp_path / name) for name in files]
    found = imported_files([str(tmp_path / "train.py")], candidates, str(tmp_path))
    assert sorted(os.path.relpath(p, tmp_path) for p in found) == ["deep.py", "engine.py", "pkg/__init__.py", "pkg/a.py"]


def test_a_file_alone_reads_imports_four_deep(tmp_path: Path) -> None:
    """A chain of imports is followed four modules away from the file, no further."""
    for index in range(6):
        (tmp_path / f"m{index}.py").write_text(f"import m{index + 1}\n" if index < 5 else "")
    (tmp_path / "train.py").write_text("import m0\n")
    candidates = [str(tmp_path / f"m{index}.py") for index in range(6)]
    found = imported_files([str(tmp_path / "train.py")], candidates, str(tmp_path))
    assert sorted(os.path.relpath(p, tmp_path) for p in found) == ["m0.py", "m1.py", "m2.py", "m3.py"]


@pytest.mark.parametrize(("script", "init_paths", "expected"), [
    ("import sys\nsys.path.insert(0, 'lib')\nfrom core.function import train\n", "", ["lib/core/function.py"]),
    ("import _init_paths\nfrom core.function import train\n", "import sys\nsys.path.append('lib')\n",
     ["lib/core/function.py", "tools/_init_paths.py"]),
    # what only mentions sys.path puts no folder on it
    ("import sys\nprint(sys.path)  # sys.path.insert(0, 'lib')\nfrom core.function import train\n", "", []),
    ("import _init_paths\nfrom core.function import train\n", "import sys\n# sys.path.append('lib')\n",
     ["tools/_init_paths.py"]),
    # `path` of `from sys import path` is sys.path; a slice assigned adds, an item read does not
    ("from sys import path\npath.append('lib')\nfrom core.function import train\n", "", ["lib/core/function.py"]),
    ("import sys\nsys.path[:0] = ['lib']\nfrom core.function import train\n", "", ["lib/core/function.py"]),
    ("import sys\nroot = sys.path[0]\nfrom core.function import train\n", "", []),
])
def test_a_file_alone_reads_the_modules_a_folder_it_puts_on_the_import_path_holds(
        tmp_path: Path, script: str, init_paths: str, expected: list[str]) -> None:
    files = {"tools/train.py": script, "tools/_init_paths.py": init_paths, "lib/core/function.py": "",
             "lib/core/other.py": "", "lib/utils.py": ""}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    candidates = [str(tmp_path / name) for name in files if name != "tools/train.py"]
    found = imported_files([str(tmp_path / "tools/train.py")], candidates, str(tmp_path))
    assert sorted(os.path.relpath(p, tmp_path) for p in found) == expected


def test_only_a_file_whose_code_puts_a_folder_on_the_import_path_may_reach_the_whole_project(tree: Path) -> None:
    graph = _graph(tree, [])
    other = os.path.abspath(tree / "other/x.py")
    assert graph.reach(str(tree / "train.py"), "import sys\nsys.path.append('other')\n").covers(other)
    assert not graph.reach(str(tree / "train.py"), "import sys\nprint(sys.path)  # sys.path.append\n").covers(other)
