"""The files of one project and how their functions call each other.

Each analysed file exports `FileFacts`: the open summaries of its functions
(`trainlint.summaries`), the qualified names it calls that are not its own
(`.engine.train_one_epoch`, `utils.ModelEMA.update`), and what its
module-level imports bind (so that a package's `__init__.py` re-export is
followed). `Project` maps those names to the project's own modules:

- `from .engine import f` / `from ..utils import f`: relative to the file's
  package folder;
- `from engine import f`, `import utils`, `from utils import *`: a module of
  the file's own folder (a script run from there), or of a folder above it up
  to the project root (a package imported from the root or a `src/` layout).

It closes the summaries across files and gives each file the summaries of
what it calls (`inputs`), with a digest that says when a file's findings
must be computed again because something it calls changed. Everything here
is plain data: no LibCST.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from itertools import takewhile
from pathlib import Path
from typing import Iterable, Iterator, Mapping

from trainlint.hooks import HOOK_LOOPS, HookLoop, hook_key
from trainlint.mro import c3_order
from trainlint.summaries import (
    BACKWARD, GLOBALS_WRITER_WORDS, HIDDEN, LOOP, MODULE_RUN, NN_MODULE, OTHER, STEP, TORCH, TORCH_EXPORT, TORCH_KIND,
    UNBOUND,
    UNKNOWN_PATCHES, Call, Summary, close, may_summarize,
)

_MAX_REEXPORTS = 4  # `__init__.py` chains followed
_STAR_IMPORT = re.compile(r"\bimport[\s\\]*\*")  # spaces, newlines and line continuations between
# the words of an import by a computed name or from a file (`importlib.import_module`,
# `__import__`, `importlib.util.spec_from_file_location`, `runpy.run_path`)
DYNAMIC_IMPORT_WORDS = ("import_module", "__import__", "spec_from_", "SourceFileLoader", "runpy")
_MAX_IMPORT_CHAIN = 8  # imports followed for what importing a module patches
CALL = ".__call__"
_MAX_LINEAGE = 12  # classes of one lineage followed
_MAX_ROUNDS = 50  # rounds closing one cycle of files (each adds effects; few are ever needed)


@dataclass(frozen=True)
class ProjectView:
    """What the project tells the engine about one file: the closed summaries
    of the other modules' functions it calls (by the names it calls them),
    and whether to export the file's own facts: always, or only when some
    rule has the file parsed anyway."""

    external: Mapping[str, Summary] = field(default_factory=dict)
    summarize: bool = False
    summarize_if_parsed: bool = False
    # keep the parsed tree when the file calls other modules: once the
    # project knows what those calls do, the file is analysed again, by the
    # same process, without parsing it again
    keep_tree: bool = False


@dataclass(frozen=True)
class SearchPaths:
    """The folders a module's code puts on `sys.path`, relative to its own folder
    (`../lib`), in the order they are looked in: `front` before the folders already
    there (`sys.path.insert(0, p)`), `back` after them (`sys.path.append(p)`).
    See `trainlint.analysis.search_paths`."""

    front: tuple[str, ...] = ()
    back: tuple[str, ...] = ()

    def to_json(self) -> dict[str, list[str]]:
        return {"front": list(self.front), "back": list(self.back)}

    @classmethod
    def from_json(cls, data: Mapping[str, list[str]]) -> SearchPaths:
        return cls(tuple(data.get("front", ())), tuple(data.get("back", ())))


@dataclass
class FileFacts:
    summaries: dict[str, Summary] = field(default_factory=dict)  # open
    calls: frozenset[str] = frozenset()  # qualified names of other modules it calls
    imports: dict[str, str] = field(default_factory=dict)  # module-level name -> qualified
    star_imports: tuple[str, ...] = ()  # modules of module-level `from m import *`
    # class name -> the bases its methods may come from: classes of the same file (a
    # bare name) or imported ones (a qualified name, as the file's imports spell it)
    bases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # folders its module-level code puts on `sys.path` (`../lib` of an `_init_paths.py`):
    # absolute imports of it, and of the files that import it, are looked for there too
    search_paths: SearchPaths = SearchPaths()

    def to_json(self) -> dict[str, object]:
        return {
            "summaries": {key: s.to_json() for key, s in self.summaries.items()},
            "calls": sorted(self.calls),
            "imports": self.imports,
            "star_imports": list(self.star_imports),
            **({"bases": {name: list(bases) for name, bases in self.bases.items()}} if self.bases else {}),
            **({"search_paths": self.search_paths.to_json()} if self.search_paths != SearchPaths() else {}),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> FileFacts:
        summaries = data.get("summaries", {})
        return cls(
            {key: Summary.from_json(raw) for key, raw in summaries.items()},  # type: ignore[union-attr]
            frozenset(data.get("calls", ())),  # type: ignore[arg-type]
            dict(data.get("imports", {})),  # type: ignore[call-overload]
            tuple(data.get("star_imports", ())),  # type: ignore[arg-type]
            {name: tuple(bases) for name, bases in data.get("bases", {}).items()},  # type: ignore[union-attr]
            SearchPaths.from_json(data.get("search_paths", {})),  # type: ignore[arg-type]
        )


def summarizable(path: str, source: str) -> bool:
    """Whether the file is a member of the project: its functions may have
    something to summarize (a function that calls a parameter included: the
    forward of a model it is handed), or it is a package's `__init__.py`, or it
    may bind `torch` for a file that star-imports it (`utils.py` of `from utils
    import *`, read for how it binds `torch` and what it re-exports), or it may
    import a module by a name it computes (what that runs is not known, see
    `Summary.patches`)."""
    return (may_summarize(source) or path.endswith("__init__.py") or may_bind_torch(source)
            or any(word in source for word in DYNAMIC_IMPORT_WORDS))


def may_bind_torch(source: str) -> bool:
    """Whether the module may bind `torch` for a star import of it: it names torch,
    star-imports another module, or may write its globals by name. A file of the
    project that is no member binds no `torch` (see `Project.torch_exported`)."""
    return "torch" in source or may_star_import(source) or any(word in source for word in GLOBALS_WRITER_WORDS)


def may_star_import(source: str) -> bool:
    """Whether the text may star-import a module (`from utils import *`)."""
    return _STAR_IMPORT.search(source) is not None


def project_root(paths: Iterable[str], config_dir: Path | None) -> Path:
    """The config's folder when one was found and holds the paths given, else
    the common folder of the paths, or the folder above it while that is a
    package (a package's own modules import it by its name: `from mypkg.utils
    import f` inside `mypkg/` resolves from `mypkg`'s parent). A configuration
    kept elsewhere (`--config configs/lint.toml`) says nothing of where the
    project's modules are."""
    absolute = [os.path.abspath(p) for p in paths]
    if config_dir is not None:
        folder = config_dir.resolve()
        if all(Path(p).resolve().is_relative_to(folder) for p in absolute):
            return folder
    if not absolute:
        return Path.cwd()
    common = os.path.commonpath(absolute)
    folder = Path(common if os.path.isdir(common) else os.path.dirname(common))
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        folder = folder.parent
    return folder


class Project:
    def __init__(self, root: Path, facts: Mapping[str, FileFacts], others: Iterable[str] = ()) -> None:
        """`facts` by path as given to the linter (a mapping that may load
        them only when asked); paths outside `root` take part too (their
        folder is their package). `others`: the other files linted, which
        are no members: nothing in them can do anything a summary tells
        (see `summarizable`), but a module path that names one of them names
        that module, not one further away."""
        self.root = os.path.abspath(root)
        self.facts = facts
        self._by_file = {os.path.abspath(p): p for p in facts}
        self._inert = {os.path.abspath(p) for p in others} - self._by_file.keys()
        self._candidates_of: dict[tuple[str, str, SearchPaths], list[tuple[str, str]]] = {}
        # the folders each file's imports are also looked for in, and the files whose facts say so
        self._search_paths_of: dict[str, tuple[SearchPaths, frozenset[str]]] = {}
        self._closed: dict[str, tuple[Mapping[str, Summary], frozenset[str]]] = {}
        # what each name a file's functions call of another module resolves to, and the facts read to know
        self._targets: dict[str, dict[str, tuple[str, str]]] = {}
        self._target_reads: dict[str, frozenset[str]] = {}
        self._reads: set[str] | None = None  # files whose facts the question being worked out read
        self._locally_closed: dict[str, Mapping[str, Summary]] = {}  # see `_hook_summary`
        # each class's C3 order, by (file, class): None where Python refuses it (see `_lineage`)
        self._c3_orders: dict[tuple[str, str], tuple[tuple[str, str], ...] | None] = {}
        # the fact of a class's lineage (`NN_MODULE`, `TORCH_KIND`) by (file, class, fact), and the
        # facts read to know (see `_lineage_fact`)
        self._lineage_facts: dict[tuple[str, str, str], tuple[Summary | None, frozenset[str]]] = {}

    # -- what a file needs --------------------------------------------------
    def inputs(self, path: str) -> dict[str, Summary]:
        """Closed summaries of the other modules' functions that `path`
        calls, by the names it calls them: one that does nothing a summary
        tells is known to do nothing (`start_epoch(loader, epoch)` that only
        logs is no excuse for a missing `set_epoch`)."""
        return self.inputs_and_reads(path)[0]

    def inputs_and_reads(self, path: str) -> tuple[dict[str, Summary], frozenset[str]]:
        """`inputs(path)` and the files whose facts it was worked out from:
        while their facts stay the same, so do the inputs."""
        with self._recording() as reads:
            found: dict[str, Summary] = {}
            facts = self._read(path) if path in self.facts else None
            for name in sorted(facts.calls) if facts is not None else ():
                if name.endswith(f".{HOOK_LOOPS}"):
                    found.update(self._hook_inputs(path, name.removesuffix(f".{HOOK_LOOPS}")))
                    continue
                if name.endswith(TORCH_EXPORT):
                    found[name] = Summary(torch_export=self.torch_exported(path, module_of(name)))
                    continue
                if name.endswith(NN_MODULE):
                    if self.builds_a_module(path, name.removesuffix(f".{NN_MODULE}")):
                        found[name] = Summary()
                    continue
                if name.endswith(TORCH_KIND):
                    kind = self.torch_class_kind(path, name.removesuffix(f".{TORCH_KIND}"))
                    if kind:
                        found[name] = Summary(returns_kind=kind)
                    continue
                if name.endswith(MODULE_RUN):
                    patches = self.patched_on_import(path, module_of(name))
                    if patches:
                        found[name] = Summary(patches=patches)
                    continue
                target = self._follow(path, name)
                if isinstance(target, str):
                    if target.split(".")[0] == "torch":
                        found[name] = Summary(alias_of=target)
                elif target is not None:
                    summary = self.summary(*target)
                    if summary is not None:
                        found[name] = summary
        return found, frozenset(reads)

    # -- names to functions -------------------------------------------------
    def resolve(self, path: str, qualified: str) -> tuple[str, str] | None:
        """(file, function key) that `qualified`, called from `path`, names."""
        found = self._follow(path, qualified)
        return found if isinstance(found, tuple) else None

    def _follow(self, path: str, qualified: str, depth: int = 0) -> tuple[str, str] | str | None:
        """Where `qualified`, called from `path`, leads: (file, function key) of a
        function of the project, or, when a module of the project only imports it
        (`from torch.cuda.amp import autocast` in amp_utils.py, called as
        `amp_utils.autocast`), the name outside the project it imports; else None."""
        candidates = self._candidates(path, qualified)
        if not candidates:
            return qualified if depth else None
        outside = None  # a function of a later candidate module still comes first
        for module_file, attribute in candidates:
            if module_file in self._inert:  # that module: what it holds is not known here
                return outside
            found = self._in_module(module_file, attribute, depth)
            if isinstance(found, tuple):
                return found
            outside = outside or found
        return outside

    def _in_module(self, path: str, attribute: str, depth: int) -> tuple[str, str] | str | None:
        facts = self._read(path)
        if attribute in facts.summaries:
            return path, attribute
        if depth >= _MAX_REEXPORTS:
            return None
        head, _, rest = attribute.partition(".")
        reexported = facts.imports.get(head)
        if reexported is not None:
            return self._follow(path, reexported + (f".{rest}" if rest else ""), depth + 1)
        inherited = self._inherited(path, facts, attribute, depth)
        if inherited is not None:
            return inherited
        # `from .engine import *` in a package's `__init__.py`, the last one first (it wins);
        # what one brings from outside the project counts when a module of the project
        # imports it by name (`import torch.nn as nn` in common.py), not as a guess
        for module in reversed(facts.star_imports):
            qualified = member_of(module, attribute)
            found = self._follow(path, qualified, depth + 1)
            if isinstance(found, tuple) or (found is not None and self._candidates(path, qualified)):
                return found
        if attribute.endswith(CALL):  # an instance called without a `__call__`: a module's `forward`
            return self._in_module(path, attribute.removesuffix(CALL) + ".forward", depth)
        return None

    def _inherited(self, path: str, facts: FileFacts, attribute: str, depth: int) -> tuple[str, str] | None:
        """`Trainer.fit` of a class of `path` that inherits `fit`: the method of the
        first base (depth first) that has it, in this file or in the module a base
        is imported from."""
        cls, _, method = attribute.rpartition(".")
        for base in facts.bases.get(cls, ()):
            if "." in base:
                found = self._follow(path, f"{base}.{method}", depth + 1)
            else:
                found = self._in_module(path, f"{base}.{method}", depth + 1)
            if isinstance(found, tuple):
                return None if self._calls_an_override(found, facts, cls) else found
        return None

    def _calls_an_override(self, found: tuple[str, str], facts: FileFacts, cls: str) -> bool:
        """The inherited method calls a method of its own class (`self.run()`) that
        `cls` overrides: its summary, read in the base, would describe the base's
        `run` (a template method). What it does is then left unknown."""
        base_path, key = found
        owner = key.rpartition(".")[0]
        summary = self._read(base_path).summaries.get(key)
        for event in summary.events if summary is not None else ():
            if isinstance(event, Call) and event.callee.rpartition(".")[0] == owner:
                if f"{cls}.{event.callee.rpartition('.')[2]}" in facts.summaries:
                    return True
        return False

    def _candidates(self, path: str, qualified: str) -> list[tuple[str, str]]:
        here = os.path.dirname(os.path.abspath(path))
        added = SearchPaths() if qualified.startswith(".") else self._search_paths(path)
        key = (here, qualified, added)
        found = self._candidates_of.get(key)
        if found is None:
            found = self._candidates_of[key] = list(self._find_candidates(here, qualified, added))
        return found

    def _find_candidates(self, here: str, qualified: str, added: SearchPaths) -> Iterable[tuple[str, str]]:
        bases, parts = module_bases(here, qualified, self.root)
        for base in dict.fromkeys((*added.front, *bases, *added.back)):  # where a folder is first, Python finds it
            yield from self._split(base, parts)

    def _search_paths(self, path: str) -> SearchPaths:
        """The folders (absolute) that `path` and the modules of the project it imports
        by their plain name (`import _init_paths`) put on `sys.path`."""
        if path not in self.facts:
            return SearchPaths()
        kept = self._search_paths_of.get(path)
        if kept is None:
            with self._recording() as reads:
                kept = self._search_paths_of[path] = (self._find_search_paths(path), frozenset(reads))
        self._note(kept[1])
        return kept[0]

    def _find_search_paths(self, path: str) -> SearchPaths:
        """The imported modules run first (their import sits above the script's own
        `sys.path` calls), in the order the file imports them as it runs (those its
        functions import after, see `modules_imported`): a later one's `insert(0, p)`
        lands before an earlier one's."""
        here = os.path.dirname(os.path.abspath(path))
        facts = self._read(path)
        front: list[str] = []
        back: list[str] = []
        run = facts.summaries.get(MODULE_RUN)
        order = {module: place for place, module in enumerate(run.runs if run is not None else ())}
        for module in sorted(set(facts.imports.values()), key=lambda name: (order.get(name, len(order)), name)):
            imported = self._module_file(here, module) if "." not in module else None
            if imported is not None:
                _add_search_paths(front, back, imported, self._read(imported).search_paths)
        _add_search_paths(front, back, path, facts.search_paths)
        return SearchPaths(tuple(front), tuple(back))

    def _module_file(self, here: str, module: str) -> str | None:
        """The project's file of the top-level module `module`, imported from `here`."""
        for base in module_bases(here, module, self.root)[0]:
            known = self._by_file.get(os.path.join(base, module + ".py"))
            if known is not None:
                return known
        return None

    def _split(self, base: str, parts: list[str]) -> Iterable[tuple[str, str]]:
        """Each (module file, attribute path) reading of `parts` under `base`,
        longest module first."""
        for cut in range(len(parts) - 1, 0, -1):
            folder = os.path.join(base, *parts[:cut])
            # a package beside a module of its name is what Python imports: the module is unreachable
            for candidate in (os.path.join(folder, "__init__.py"), folder + ".py"):
                known = self._by_file.get(candidate)
                if known is not None:
                    yield known, ".".join(parts[cut:])
                    break
                if candidate in self._inert:
                    yield candidate, ".".join(parts[cut:])
                    break

    # -- loops of base classes -------------------------------------------------
    def _hook_inputs(self, path: str, cls: str) -> dict[str, Summary]:
        """What the module of `cls` needs to judge its overrides where a loop it inherits
        from a class of another module calls them (see `trainlint.hooks`): those loops,
        under `hook_key(cls)`, and what each hook they call runs for an instance of `cls`
        where a class of another module defines it, under `hook_key(cls, method)`. A class
        of the module that comes after one of another module in the lineage (`class
        C(base.A, B)` and `B`) is out of the module's own sight: its loops and hooks too."""
        defined: dict[str, tuple[str, str]] = {}  # method: (file, key) of the first class defining it
        unseen: set[str] = set()  # methods the module's own reading of the lineage cannot see
        loops: list[HookLoop] = []
        lineage, whole = self._lineage(path, cls)
        past_another = False
        for file, owner in lineage:
            past_another = past_another or file != path
            for key, summary in self._read(file).summaries.items():
                head, _, method = key.rpartition(".")
                if head != owner or method in defined:
                    continue
                defined[method] = (file, key)
                if past_another:
                    unseen.add(method)
                    where = os.path.relpath(os.path.abspath(file), self.root).replace(os.sep, "/") if file != path else ""
                    loops.extend(replace(loop, where=where) for loop in summary.hook_loops)
        # a method no class of a lineage the project sees whole defines runs nothing a
        # subclass overrides (torch's own, `self.zero_grad()`, or none): like one of the module's
        undefined = Summary() if whole else None
        resolved = {method: self._hook_summary(path, *defined[method]) if method in defined else undefined
                    for method in sorted({call.method for loop in loops for call in loop.calls})}
        # only a loop that trains for this class: others give its module nothing to judge
        loops = [loop for loop in loops if _trains(loop, resolved)]
        if not loops:
            return {}
        found = {hook_key(cls): Summary(hook_loops=tuple(loops))}
        found.update({hook_key(cls, method): summary for method, summary in resolved.items()
                      if summary is not None and (method in unseen or method not in defined)})
        return found

    def _hook_summary(self, path: str, file: str, key: str) -> Summary | None:
        """What the method `key` of `file` does for a subclass of `path`: closed, or,
        for one of `path` itself, closed over its own module (enough to tell whether it
        trains; its module closes it fully)."""
        if file != path:
            return self.summary(file, key)
        if path not in self._locally_closed:
            self._locally_closed[path] = close(self._read(path).summaries)
        return self._locally_closed[path].get(key)

    def _lineage(self, path: str, cls: str) -> tuple[list[tuple[str, str]], bool]:
        """(file, class) of `cls` of `path`, then of its bases, in the order Python looks a
        method up (C3), up to the first base that is no class of the project (a library's):
        what comes after it is not known. With whether that is the whole lineage (torch's
        bases aside, which `bases` leaves out). Depth first where Python would refuse the
        class, or the lineage is too long to follow."""
        graph = self._class_graph(path, cls)
        order = c3_order((path, cls), graph, graph.__getitem__, self._c3_orders) if graph else None
        if order is None:
            return self._depth_first(path, cls)
        known = list(takewhile(lambda node: bool(node[0]), order))
        return known, len(known) == len(order)

    def _class_graph(self, path: str, cls: str) -> dict[tuple[str, str], tuple[tuple[str, str], ...]]:
        """The bases of `cls` of `path` and of each class of the project it inherits from,
        by (file, class); a base that is no class of the project is ("", its name), with no
        bases of its own. Empty past `_MAX_LINEAGE` classes of the project."""
        found: dict[tuple[str, str], tuple[tuple[str, str], ...]] = {}
        followed = 0
        pending = [(path, cls)]
        while pending:
            current = pending.pop()
            if current in found:
                continue
            if current[0] and followed == _MAX_LINEAGE:
                return {}
            followed += bool(current[0])
            found[current] = tuple(base or ("", name) for base, name in self._bases(*current)) if current[0] else ()
            pending.extend(found[current])
        return found

    def _depth_first(self, path: str, cls: str) -> tuple[list[tuple[str, str]], bool]:
        """`_lineage` depth first, left to right, as Python looks a method up along single
        inheritance."""
        seen: list[tuple[str, str]] = []
        pending = [(path, cls)]
        while pending:
            current = pending.pop()
            if current in seen:
                continue
            if len(seen) == _MAX_LINEAGE:
                return seen, False
            seen.append(current)
            bases = [base for base, _ in self._bases(*current)]
            if None in bases:
                return seen, False
            pending.extend(reversed(bases))  # type: ignore[arg-type]
        return seen, True

    def _bases(self, file: str, cls: str) -> Iterator[tuple[tuple[str, str] | None, str]]:
        """Each base of `cls` of `file` as (file, class) of the project, None where it is
        none (a library's), with its name as the file writes it."""
        for base in self._read(file).bases.get(cls, ()):
            yield ((file, base) if "." not in base else self._class_at(file, base)), base

    def builds_a_module(self, path: str, qualified: str) -> bool:
        """`qualified`, as `path` names it, is a class of the project whose lineage, through
        the project's files, reaches a class that derives from one of `torch.nn` itself (its
        module's fact `NN_MODULE`): a class of a library's, or past the lineage followed, is
        not known to be one."""
        found = self._class_at(path, qualified)
        return found is not None and self._lineage_fact(*found, NN_MODULE) is not None

    def torch_class_kind(self, path: str, qualified: str) -> str:
        """The kind ("optimizer", "scheduler") of the torch class that the lineage of
        `qualified`, a class of the project as `path` names it, reaches through the
        project's files (its module's fact `TORCH_KIND`); "" where none is known."""
        found = self._class_at(path, qualified)
        summary = self._lineage_fact(*found, TORCH_KIND) if found is not None else None
        return summary.returns_kind if summary is not None else ""

    def _lineage_fact(self, path: str, cls: str, fact: str) -> Summary | None:
        """The first summary of `fact` (`NN_MODULE`, `TORCH_KIND`) that a module of the
        project holds for a class of the lineage of `cls` of `path`, worked out once for the
        run: every file of the project that names it asks the same (a class of a shared
        `models.py`), each time told the facts its lineage was read from."""
        kept = self._lineage_facts.get((path, cls, fact))
        if kept is None:
            with self._recording() as reads:
                summaries = (self._read(file).summaries.get(f"{base}.{fact}")
                             for file, base in self._class_graph(path, cls) if file)
                found = next((summary for summary in summaries if summary is not None), None)
            kept = self._lineage_facts[path, cls, fact] = (found, frozenset(reads))
        self._note(kept[1])
        return kept[0]

    def _class_at(self, path: str, qualified: str, depth: int = 0) -> tuple[str, str] | None:
        """(file, class name) of the class of the project `qualified` names from `path`,
        through the re-exports of a package's `__init__.py`."""
        for module_file, attribute in self._candidates(path, qualified):
            if module_file in self._inert:
                return None
            facts = self._read(module_file)
            if attribute in facts.bases or any(key.startswith(f"{attribute}.") for key in facts.summaries):
                return module_file, attribute
            head, _, rest = attribute.partition(".")
            reexported = facts.imports.get(head)
            if reexported is not None and depth < _MAX_REEXPORTS:
                return self._class_at(module_file, reexported + (f".{rest}" if rest else ""), depth + 1)
        return None

    def torch_exported(self, path: str, module: str, depth: int = 0, asker: str | None = None) -> str:
        """How `from module import *`, in `path`, binds `torch` (`torch_binding`'s
        constants): the module's own binding and those of its star imports, which
        must all be torch's or none; OTHER for a module the project does not hold,
        a chain too long, or a cycle (which is one). `asker`: the file linted, whose
        imports decide whether a package's submodule `torch` is loaded."""
        asker = asker or path
        candidates = self._candidates(path, member_of(module, TORCH_EXPORT))
        if not candidates or depth >= _MAX_REEXPORTS or candidates[0][1] != TORCH_EXPORT:
            return OTHER  # outside the project, or a module of it that is not linted
        module_file = candidates[0][0]  # the one Python imports
        if module_file in self._inert:  # no member: its text cannot bind `torch` (see `may_bind_torch`)
            return UNBOUND
        submodule = _torch_submodule(module_file)
        if submodule is not None and self._may_load(asker, submodule):
            return OTHER
        facts = self._read(module_file)
        own = facts.summaries.get(TORCH_EXPORT, Summary()).torch_export
        if own in (OTHER, HIDDEN):
            return own
        found = {own} | {self.torch_exported(module_file, star, depth + 1, asker) for star in facts.star_imports
                         if star.split(".")[0] != "torch"}
        return OTHER if OTHER in found else TORCH if TORCH in found else UNBOUND

    def _may_load(self, path: str, submodule: str) -> bool:
        """Whether running `path` may load the package's submodule of the file `submodule`
        as a member of its package (`models.torch`, `.torch`; a file of the package's
        folder run as a script imports it as `torch`, a module of its own): its imports,
        or those of the modules they run in turn, name it so; or the file is not linted,
        and what imports it is not known."""
        absolute = os.path.abspath(submodule)
        if absolute not in self._by_file and absolute not in self._inert:
            return True
        run = self._read(path).summaries.get(MODULE_RUN)
        reached, cut = self._imports_run([(path, module) for module in run.runs] if run is not None else [])
        return cut or any(os.path.abspath(found) == absolute and (module.startswith(".") or "." in module)
                          for found, module in reached)

    def patched_on_import(self, path: str, module: str) -> frozenset[str]:
        """The attributes of torch's AMP API that `import module`, in `path`, replaces:
        the module's own patches and those of the modules of the project its imports run
        in turn (`train.py` imports `launch`, which imports `ports.npu`)."""
        reached, cut = self._imports_run([(path, module)])
        found: set[str] = set(UNKNOWN_PATCHES if cut else ())
        for module_file in {module_file for module_file, _ in reached}:
            run = self._read(module_file).summaries.get(MODULE_RUN) if module_file not in self._inert else None
            found |= run.patches if run is not None else frozenset()
        return frozenset(found)

    def _imports_run(self, imports: Iterable[tuple[str, str]]) -> tuple[list[tuple[str, str]], bool]:
        """(file, module as spelled) of each import of the project that each (importer,
        module) of `imports` runs, and of those the modules it reaches run in turn, up to
        `_MAX_IMPORT_CHAIN` imports away, nearest first; each file's imports are read once
        (a cycle of imports ends). Members, and other files too (whose imports reach
        nothing of the project). With whether the bound cut a chain that goes on into
        the project: what lies beyond is not known."""
        found: list[tuple[str, str]] = []
        seen: set[str] = set()
        pending = deque((importer, module, 0) for importer, module in imports)
        while pending:
            importer, module, depth = pending.popleft()
            module_file = self._imported_file(importer, module)
            if module_file is None:
                continue
            if depth == _MAX_IMPORT_CHAIN:
                if module_file not in seen:
                    return found, True
                continue
            found.append((module_file, module))
            if module_file in seen:
                continue
            seen.add(module_file)
            run = self._read(module_file).summaries.get(MODULE_RUN) if module_file not in self._inert else None
            if run is not None:
                pending.extend((module_file, name, depth + 1) for name in run.runs)
        return found, False

    def _imported_file(self, path: str, module: str) -> str | None:
        """The file of the project that `import module` in `path` runs: the one Python
        finds first, when it is that module (not an attribute of another)."""
        candidates = self._candidates(path, member_of(module, MODULE_RUN))
        return candidates[0][0] if candidates and candidates[0][1] == MODULE_RUN else None

    # -- closing across files -------------------------------------------------
    def summary(self, path: str, key: str) -> Summary | None:
        """The closed summary of function `key` of `path`."""
        return self._closed_file(path).get(key)

    def _closed_file(self, path: str) -> Mapping[str, Summary]:
        if path not in self._closed:
            self._close_from(path)
        closed, reads = self._closed[path]
        self._note(reads)
        return closed

    def _close_from(self, start: str) -> None:
        """Close `start` and every file it reaches through calls, a cycle of
        files (a strongly connected component, Tarjan's order) at a time,
        callees first: each answer is the same whoever asks first."""
        index: dict[str, int] = {start: 0}
        low = {start: 0}
        stack, on_stack = [start], {start}
        work = [(start, iter(self._callee_files(start)))]
        while work:
            node, callees = work[-1]
            for callee in callees:
                if callee in self._closed:
                    continue
                if callee not in index:
                    index[callee] = low[callee] = len(index)
                    stack.append(callee)
                    on_stack.add(callee)
                    work.append((callee, iter(self._callee_files(callee))))
                    break
                if callee in on_stack:
                    low[node] = min(low[node], index[callee])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    self._close_component(component)

    def _callee_files(self, path: str) -> list[str]:
        """The other files whose functions `path`'s functions call."""
        return sorted({file for file, _ in self._call_targets(path).values() if file != path})

    def _call_targets(self, path: str) -> dict[str, tuple[str, str]]:
        """(file, function key) of each name of another module that `path`'s functions call."""
        found = self._targets.get(path)
        if found is None:
            with self._recording() as reads:
                summaries = self._read(path).summaries
                names = {event.callee for summary in summaries.values() for event in summary.events
                         if isinstance(event, Call) and event.callee not in summaries}
                # what a loop's call, or a helper, hands a model to (`Summary.forwards_through`,
                # `evaluated_through`, `called_through`)
                names.update(callee for summary in summaries.values()
                             for _, callee, _ in (*summary.forwards_through, *summary.evaluated_through,
                                                  *summary.called_through)
                             if callee not in summaries)
                found = {name: target for name in sorted(names) if (target := self.resolve(path, name))}
            self._target_reads[path] = frozenset(reads)
            self._targets[path] = found
        return found

    def _close_component(self, members: list[str]) -> None:
        """Close the files of one cycle together: their summaries grow (sets
        and flags only ever add) until a round changes nothing."""
        current: dict[str, Mapping[str, Summary]] = {member: {} for member in members}
        reads: set[str] = set(members)
        for member in members:
            reads |= self._target_reads[member]
            reads.update(*(self._closed[file][1] for file, _ in self._targets[member].values()
                           if file not in current))

        def external(path: str, name: str) -> Summary | None:
            target = self._targets[path].get(name)
            if target is None:
                return None
            file, key = target
            return (current[file] if file in current else self._closed[file][0]).get(key)

        for _ in range(_MAX_ROUNDS):
            changed = False
            for member in members:
                closed = close(self.facts[member].summaries, lambda name, member=member: external(member, name))
                if closed != current[member]:
                    current[member], changed = closed, True
            if not changed:
                break
        for member in members:
            self._closed[member] = (current[member], frozenset(reads))

    # -- what each answer was worked out from ---------------------------------
    def _read(self, path: str) -> FileFacts:
        self._note((path,))
        return self.facts[path]

    def _note(self, paths: Iterable[str]) -> None:
        if self._reads is not None:
            self._reads.update(paths)

    @contextmanager
    def _recording(self) -> Iterator[set[str]]:
        """The files whose facts are read inside it. What a file's call
        targets read is kept apart (`_target_reads`): whoever asks later is
        told it along with the closed answer (`_closed_file`)."""
        saved, self._reads = self._reads, set()
        try:
            yield self._reads
        finally:
            self._reads = saved


def _trains(loop: HookLoop, hooks: Mapping[str, Summary | None]) -> bool:
    """`loop` back-propagates or steps, itself or through a hook that runs no loop of its
    own (see `trainlint.analysis.hook_runs.HookRun.trains`); a hook not known tells nothing."""
    if BACKWARD in loop.effects or STEP in loop.effects:
        return True
    return any(summary is not None and not summary.does(LOOP) and (summary.does(BACKWARD) or summary.does(STEP))
               for summary in (hooks.get(call.method) for call in loop.calls))


def member_of(module: str, name: str) -> str:
    """The dotted name of `name` in `module`, as `from module import name` binds
    it: `pkg.utils` from `pkg`, and `.utils` from `.` (`from . import utils`: a
    sibling, not `..utils`, which is a module of the parent package)."""
    return module + name if module.endswith(".") else f"{module}.{name}"


def _torch_submodule(module_file: str) -> str | None:
    """The file of the package's submodule `torch` (`models/torch.py`, `models/torch/__init__.py`)
    when the module is a package with one: once anything imports that submodule (`from
    .torch import f`, `import pkg.torch`), it is the package's `torch`, and a star import
    of the package may bind it."""
    if os.path.basename(module_file) != "__init__.py":
        return None
    folder = os.path.dirname(module_file)
    package = os.path.join(folder, "torch")
    for candidate in (os.path.join(package, "__init__.py"), package + ".py"):
        if os.path.isfile(candidate):
            return candidate
    return package if os.path.isdir(package) else None  # a namespace package: no file of the run


def module_of(name: str) -> str:
    """The module of `name`, as `member_of` joined them: `pkg` of `pkg.x`, `.` of `.x`."""
    module, _, _ = name.rpartition(".")
    return module if module.strip(".") else module + "."


def _add_search_paths(front: list[str], back: list[str], path: str, added: SearchPaths) -> None:
    """Add the folders the module `path` puts on `sys.path`, absolute, to those put there before."""
    there = os.path.dirname(os.path.abspath(path))
    front[:0] = [os.path.normpath(os.path.join(there, folder)) for folder in added.front]
    back += [os.path.normpath(os.path.join(there, folder)) for folder in added.back]


def module_bases(here: str, dotted: str, root: str) -> tuple[list[str], list[str]]:
    """Where the module path `dotted`, written in a file of the folder
    `here`, is looked for, and its parts: relative to the file's package for
    `.engine` / `..utils`; else the file's folder (a script run from there),
    then each folder above it up to the project root (a package imported
    from the root or a `src/` layout)."""
    if dotted.startswith("."):
        dots = len(dotted) - len(dotted.lstrip("."))
        base = here
        for _ in range(dots - 1):
            base = os.path.dirname(base)
        return [base], [part for part in dotted[dots:].split(".") if part]
    bases = [here]
    if here != root and here.startswith(root.rstrip(os.sep) + os.sep):
        while here != root:
            here = os.path.dirname(here)
            bases.append(here)
    return bases, dotted.split(".")


def inputs_digest(inputs: Mapping[str, Summary]) -> str:
    """Identifies what a file was linted with: equal digests, equal findings."""
    if not inputs:
        return ""
    text = json.dumps({name: s.to_json() for name, s in sorted(inputs.items())}, sort_keys=True)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
