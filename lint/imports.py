"""Which files of the project a file may import, read from its text alone
(no parse), so that a run can tell before parsing anything whose summaries
may ever be asked for.

The project (`trainlint.project`) follows a call into another module only
through a name the calling file imports: `import utils`, `from .engine
import train`, `from pkg import *`, also inside functions and `try:`
blocks. Every such statement spells the module's dotted path after `from`
or `import`, so scanning the text for those words finds a superset of the
modules any call can reach. A module path is looked for as the project
looks for it (`module_bases`); a package reached this way stands for every
file below its folder, since `pkg.sub.f()` can name any of them.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

from trainlint.notebook import is_notebook, notebook_source
from trainlint.project import may_star_import, member_of, module_bases

_GAP = r"[\s\\]"  # spaces, newlines and line continuations
# each starts with its keyword, which the regex engine finds fast; what
# precedes the keyword is checked after it (`(?<!...)`), not before
_FROM = re.compile(rf"from(?<![\w.]from){_GAP}+(\.*[A-Za-z_][\w.]*|\.+){_GAP}*import\b")
_NAME = rf"[A-Za-z_][\w.]*(?:{_GAP}+as{_GAP}+\w+)?"
_IMPORT = re.compile(rf"import(?<![\w.]import){_GAP}+({_NAME}(?:{_GAP}*,{_GAP}*{_NAME})*)")
# a line of code that puts a folder on the import path (see `trainlint.analysis.search_paths`:
# `insert`, `append`, `extend`, `+=`, an assignment to a slice), not a comment, `print(sys.path)`
# or a read of an item (`root = sys.path[0]`)
_ADDS_SEARCH_PATH = re.compile(
    r"^[^#\n]*\bsys\.path(?:\.(?:insert|append|extend)\b|\s*\+=|\s*\[[^\]\n]*\]\s*=(?!=))", re.MULTILINE)
# `from sys import path`: what the module does with `path` is read from its code
_IMPORTS_SYS_PATH = re.compile(r"^[ \t]*from[ \t]+sys[ \t]+import\b[^#\n]*\bpath\b", re.MULTILINE)


def adds_search_path(text: str) -> bool:
    """Whether the text may put a folder on `sys.path`."""
    return ("sys.path" in text and _ADDS_SEARCH_PATH.search(text) is not None) or (
        "from sys" in text and _IMPORTS_SYS_PATH.search(text) is not None)


def imported_modules(text: str) -> set[str]:
    """Every dotted module path the text may import (and some more)."""
    found = {match.group(1) for match in _FROM.finditer(text)}
    for match in _IMPORT.finditer(text):
        for part in match.group(1).replace("\\", " ").split(","):
            found.add(part.split()[0])
    return found


def _folders_above(path: str) -> Iterable[str]:
    """The folder of `path`, its parent, and so on up to the file system's root."""
    folder = os.path.dirname(path)
    while True:
        yield folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return
        folder = parent


def _folders_holding(paths: Iterable[str]) -> set[str]:
    """Every folder with one of `paths` at any depth below it."""
    found: set[str] = set()
    for path in paths:
        for folder in _folders_above(path):
            if folder in found:
                break  # and so is every folder above it
            found.add(folder)
    return found


def _under(folder: str, name: str) -> str:
    """`os.path.join(folder, name)` for an absolute folder, without its cost."""
    return folder.rstrip(os.sep) + os.sep + name


@dataclass
class Reach:
    """What a file may import: these files, and every file below these folders."""

    files: set[str] = field(default_factory=set)
    folders: set[str] = field(default_factory=set)
    stars: bool = False  # it star-imports a module (`from utils import *`)

    def covers(self, path: str) -> bool:
        return path in self.files or any(folder in self.folders for folder in _folders_above(path))

    def update(self, other: Reach) -> None:
        self.files |= other.files
        self.folders |= other.folders
        self.stars = self.stars or other.stars


class ImportGraph:
    """The files of a project and those of them that have summaries (its
    members), to ask what a file may import."""

    def __init__(self, root: str, files: Iterable[str], members: Iterable[str]) -> None:
        self.root = os.path.abspath(root)
        self.files = {os.path.abspath(path) for path in files}
        self.members = {os.path.abspath(path) for path in members}
        self._with_members = _folders_holding(self.members)  # folders with a member at any depth below them
        self._with_files: set[str] | None = None  # the same for any file, when first asked
        # every folder holding a file of the project, and each module's path
        # without `.py`: a module path whose first part is none of these
        # under a base can reach nothing there (`import torch` in a project
        # without a torch/ folder), which spares the walk over its parts
        everything = self.files | self.members
        self._places = _folders_holding(everything) | {path[:-3] for path in everything if path.endswith(".py")}
        self._holders: dict[str, list[str]] | None = None  # see `holders`, when first asked

    def reach(self, path: str, text: str) -> Reach:
        """What `path` (whose source is `text`) may import."""
        here = os.path.dirname(os.path.abspath(path))
        found = Reach()
        absolute_bases: list[str] | None = None  # the same for every absolute import of the file
        for module in imported_modules(text):
            if module.startswith("."):
                bases, parts = module_bases(here, module, self.root)
            else:
                if absolute_bases is None:
                    absolute_bases = module_bases(here, module, self.root)[0]
                bases, parts = absolute_bases, module.split(".")
            for base in bases:
                if not parts:
                    found.folders.add(base)
                elif _under(base, parts[0]) not in self._places:
                    continue
                for cut in range(len(parts), 0, -1):
                    # `a/b.py` or below `a/b/`, `a.py` or below `a/`
                    folder = os.path.join(base, *parts[:cut])
                    if folder + ".py" in self.files:
                        found.files.add(folder + ".py")
                    found.folders.add(folder)
        if adds_search_path(text):  # it may put any folder of the project on the import path
            found.folders.add(self.root)
        found.stars = may_star_import(text)
        return found

    def add_members(self, paths: Iterable[str]) -> None:
        """More members, of the files already known (what `reach` answers stays the same)."""
        added = {os.path.abspath(path) for path in paths} - self.members
        self.members |= added
        self._with_members |= _folders_holding(added)

    def imports_project(self, reach: Reach) -> bool:
        """Whether a file with this reach may import any file of the project."""
        if reach.files:
            return True
        if self._with_files is None:
            self._with_files = _folders_holding(self.files)
        return bool(reach.folders & self._with_files)

    def holders(self, name: str) -> list[str]:
        """The folders of the project with a module or package `name` in them: where
        `import name` may find it once a file has put a folder on `sys.path`."""
        if self._holders is None:
            self._holders = {}
            for place in sorted(self._places):
                self._holders.setdefault(os.path.basename(place), []).append(os.path.dirname(place))
        return self._holders.get(name, [])

    def imports_members(self, reach: Reach) -> bool:
        """Whether a file with this reach may call into a member: only then
        can the project give it the summaries of what it calls. A star import
        of any module of the project counts: the project tells the file how
        it binds `torch` (one that is no member binds none)."""
        return (bool(reach.files & self.members) or bool(reach.folders & self._with_members)
                or (reach.stars and self.imports_project(reach)))


_IMPORT_DEPTH = 4  # imports followed from a file linted alone: its own, and three more


def imported_files(requested: Iterable[str], candidates: Iterable[str], root: str,
                   texts: Mapping[str, bytes] | None = None) -> list[str]:
    """The files of `candidates` that the `requested` files import: the module
    each import statement names (and the submodule `from pkg import name` may
    name), looked up as the project looks up calls; through a package's
    `__init__.py`, the module each imported name is re-exported from; and the
    modules those modules import, up to `_IMPORT_DEPTH` imports away: what a
    helper's helper does (`engine.train_step()` calling `utils.prepare()`) is
    what the whole project's run sees too. `texts`: the Python of requested
    files that differ from the disk (an editor's buffer; a notebook's: the
    module of its code cells, see `trainlint.notebook`), as UTF-8 bytes."""
    by_path = {os.path.abspath(path): path for path in candidates}
    requested_paths = {os.path.abspath(path) for path in requested}
    # the text screen first: a file that cannot import any candidate is not parsed
    screen = ImportGraph(root, by_path, ())
    seen: set[str] = set()
    expanded: set[tuple[str, frozenset[str]]] = set()
    found: list[str] = []
    adds: dict[str, bool] = {}  # whether a candidate puts folders on `sys.path`, once read
    pending: list[tuple[str, frozenset[str] | None, int]] = [(path, None, 0) for path in requested]
    while pending:
        path, wanted, depth = pending.pop()
        data = (texts or {}).get(path)
        if data is None:
            data = _python_of(path)
            if data is None:
                continue
        text = data.decode("utf-8", errors="replace")
        if not screen.imports_project(screen.reach(path, text)):
            continue
        imports = list(_imported_paths(path, data, root, wanted))
        if adds_search_path(text) or any(_module_adds_search_path(absolute, adds) for absolute, _ in imports
                                         if absolute in by_path and not absolute.endswith("__init__.py")):
            # a folder of the project that holds the module may be on the import path
            imports = list(_imported_paths(path, data, root, wanted, screen.holders))
        for absolute, names in imports:
            original = by_path.get(absolute)
            if original is None or absolute in requested_paths:
                continue
            package = os.path.basename(absolute) == "__init__.py"
            if package and names and (absolute, names) not in expanded:
                expanded.add((absolute, names))
                pending.append((original, names, depth))  # where the package takes these names from
            if absolute not in seen:
                seen.add(absolute)
                found.append(original)
                if depth + 1 < _IMPORT_DEPTH and not (package and names):
                    pending.append((original, None, depth + 1))  # a package imported whole: all it imports
    return sorted(found)


def _python_of(path: str) -> bytes | None:
    """The Python of the file `path` as stored: a notebook's is its code
    cells' module; None when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    if not is_notebook(path):
        return data
    cells = notebook_source(data)
    return cells.encode("utf-8") if cells is not None else None


def _module_adds_search_path(path: str, adds: dict[str, bool]) -> bool:
    """Whether the module `path` (an `_init_paths.py`) may put folders on `sys.path`."""
    known = adds.get(path)
    if known is None:
        data = _python_of(path)
        known = adds[path] = data is not None and adds_search_path(data.decode("utf-8", errors="replace"))
    return known


def _imported_paths(path: str, data: bytes, root: str, wanted: frozenset[str] | None,
                    holders: Callable[[str], list[str]] | None = None
                    ) -> Iterable[tuple[str, frozenset[str] | None]]:
    """The module files the import statements of `path` (its bytes: `data`) may name, each with the
    names imported from it. With `wanted` (a package's `__init__.py`), only the
    imports that bind those names, and star imports; imports under
    `if TYPE_CHECKING:` never run. `holders`: the more folders where an absolute
    import of a module of this name is looked for."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return
    here = os.path.dirname(os.path.abspath(path))
    for node in _run_time_nodes(tree):
        modules: list[tuple[str, frozenset[str] | None]] = []
        if isinstance(node, ast.Import) and wanted is None:
            modules = [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            aliases = [a for a in node.names if wanted is None or a.name == "*" or (a.asname or a.name) in wanted]
            if not aliases:
                continue
            names = frozenset(a.name for a in aliases)
            modules = [(base, None if "*" in names else names)]
            modules += [(member_of(base, a.name), None) for a in aliases if a.name != "*"]
        for module, names in modules:
            bases, parts = module_bases(here, module, root)
            if not parts:
                continue
            if holders is not None and not module.startswith("."):
                bases = [*bases, *holders(parts[0])]
            for folder in bases:
                target = os.path.join(folder, *parts)
                yield os.path.join(target, "__init__.py"), names  # a package before a module of its name
                yield target + ".py", names


def _run_time_nodes(tree: ast.AST) -> Iterable[ast.AST]:
    """Every node of `tree` but the bodies of `if TYPE_CHECKING:`."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))
