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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

from trainlint.summaries import Summary, close

_MAX_REEXPORTS = 4  # `__init__.py` chains followed


@dataclass(frozen=True)
class ProjectView:
    """What the project tells the engine about one file: the closed summaries
    of the other modules' functions it calls (by the names it calls them),
    and whether to export the file's own facts."""

    external: Mapping[str, Summary] = field(default_factory=dict)
    summarize: bool = False


@dataclass
class FileFacts:
    summaries: dict[str, Summary] = field(default_factory=dict)  # open
    calls: frozenset[str] = frozenset()  # qualified names of other modules it calls
    imports: dict[str, str] = field(default_factory=dict)  # module-level name -> qualified
    star_imports: tuple[str, ...] = ()  # modules of module-level `from m import *`

    def to_json(self) -> dict[str, object]:
        return {
            "summaries": {key: s.to_json() for key, s in self.summaries.items()},
            "calls": sorted(self.calls),
            "imports": self.imports,
            "star_imports": list(self.star_imports),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> FileFacts:
        summaries = data.get("summaries", {})
        return cls(
            {key: Summary.from_json(raw) for key, raw in summaries.items()},  # type: ignore[union-attr]
            frozenset(data.get("calls", ())),  # type: ignore[arg-type]
            dict(data.get("imports", {})),  # type: ignore[call-overload]
            tuple(data.get("star_imports", ())),  # type: ignore[arg-type]
        )


def project_root(paths: Iterable[str], config_dir: Path | None) -> Path:
    """The config's folder when one was found, else the common folder of
    the paths given."""
    if config_dir is not None:
        return config_dir.resolve()
    absolute = [os.path.abspath(p) for p in paths]
    if not absolute:
        return Path.cwd()
    common = os.path.commonpath(absolute)
    return Path(common if os.path.isdir(common) else os.path.dirname(common))


class Project:
    def __init__(self, root: Path, facts: Mapping[str, FileFacts]) -> None:
        """`facts` by path as given to the linter; paths outside `root` take
        part too (their folder is their package)."""
        self.root = root
        self.facts = facts
        self._by_file = {Path(os.path.abspath(p)): p for p in facts}
        self._closed: dict[str, Mapping[str, Summary]] = {}
        self._active: set[str] = set()

    # -- what a file needs --------------------------------------------------
    def inputs(self, path: str) -> dict[str, Summary]:
        """Closed summaries of the other modules' functions that `path`
        calls, by the names it calls them, when they do anything."""
        found: dict[str, Summary] = {}
        facts = self.facts.get(path)
        for name in sorted(facts.calls) if facts is not None else ():
            target = self.resolve(path, name)
            summary = self.summary(*target) if target is not None else None
            if summary is not None and _says_something(summary):
                found[name] = summary
        return found

    # -- names to functions -------------------------------------------------
    def resolve(self, path: str, qualified: str, _depth: int = 0) -> tuple[str, str] | None:
        """(file, function key) that `qualified`, called from `path`, names."""
        for module_file, attribute in self._candidates(path, qualified):
            found = self._in_module(module_file, attribute, _depth)
            if found is not None:
                return found
        return None

    def _in_module(self, path: str, attribute: str, depth: int) -> tuple[str, str] | None:
        facts = self.facts[path]
        if attribute in facts.summaries:
            return path, attribute
        if depth >= _MAX_REEXPORTS:
            return None
        head, _, rest = attribute.partition(".")
        reexported = facts.imports.get(head)
        if reexported is not None:
            return self.resolve(path, reexported + (f".{rest}" if rest else ""), depth + 1)
        for module in facts.star_imports:  # `from .engine import *` in a package's `__init__.py`
            found = self.resolve(path, f"{module}.{attribute}", depth + 1)
            if found is not None:
                return found
        return None

    def _candidates(self, path: str, qualified: str) -> Iterable[tuple[str, str]]:
        here = Path(os.path.abspath(path)).parent
        if qualified.startswith("."):
            dots = len(qualified) - len(qualified.lstrip("."))
            base = here
            for _ in range(dots - 1):
                base = base.parent
            yield from self._split(base, qualified[dots:].split("."))
            return
        parts = qualified.split(".")
        for base in self._search_path(here):
            yield from self._split(base, parts)

    def _search_path(self, here: Path) -> Iterable[Path]:
        yield here
        root = self.root
        if here != root and root in here.parents:
            for parent in here.parents:
                yield parent
                if parent == root:
                    return

    def _split(self, base: Path, parts: list[str]) -> Iterable[tuple[str, str]]:
        """Each (module file, attribute path) reading of `parts` under `base`,
        longest module first."""
        for cut in range(len(parts) - 1, 0, -1):
            folder = base.joinpath(*parts[:cut])
            for candidate in (folder.with_suffix(".py"), folder / "__init__.py"):
                known = self._by_file.get(candidate)
                if known is not None:
                    yield known, ".".join(parts[cut:])

    # -- closing across files -------------------------------------------------
    def summary(self, path: str, key: str) -> Summary | None:
        """The closed summary of function `key` of `path`."""
        return self._closed_file(path).get(key)

    def _closed_file(self, path: str) -> Mapping[str, Summary]:
        done = self._closed.get(path)
        if done is not None:
            return done
        if path in self._active:
            return {}  # a cycle of imports: what the other side knows without this file
        self._active.add(path)
        try:
            closed = close(self.facts[path].summaries, lambda name: self._external(path, name))
        finally:
            self._active.discard(path)
        self._closed[path] = closed
        return closed

    def _external(self, path: str, name: str) -> Summary | None:
        target = self.resolve(path, name)
        return self.summary(*target) if target is not None else None


def _says_something(summary: Summary) -> bool:
    data = summary.to_json()
    return any(data[name] for name in data if name != "params")


def inputs_digest(inputs: Mapping[str, Summary]) -> str:
    """Identifies what a file was linted with: equal digests, equal findings."""
    if not inputs:
        return ""
    text = json.dumps({name: s.to_json() for name, s in sorted(inputs.items())}, sort_keys=True)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
