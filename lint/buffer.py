"""Text that is not the file on disk, or not yet: an editor's buffer, standard
input. It is linted as `trainlint check PATH` lints that one file: the modules
of the project it imports are read from disk for what their functions do (a
clip in `helpers.clip(...)`, a `zero_grad()` in a trainer's base class), and
only the text itself is reported.

An editor asks again at every change: the files of the project and the facts
of each module read are kept while the module's file stays the same.
"""

from __future__ import annotations

import functools
import os
import time
from pathlib import Path
from typing import Callable

from trainlint.config import Config
from trainlint.discovery import discover
from trainlint.imports import ImportGraph, imported_files
from trainlint.project import FileFacts, Project, ProjectView, project_root, summarizable
from trainlint.runner import analyse_bytes
from trainlint.source import SourceError, decode

FILES_KEPT_S = 5.0  # how long a listing of the project's files is taken as current

_listings: dict[tuple[object, ...], tuple[float, list[str]]] = {}  # (root, its configuration) -> (when, files)
_facts: dict[str, tuple[tuple[int, int], FileFacts | None]] = {}  # path -> ((mtime, size), facts)


def buffer_view(path: str, text: str, config: Config) -> ProjectView:
    """What the project's modules that `text`, as the file `path`, imports tell
    about its calls (what `ProjectView` a run over that one file would give it).
    `text` is Python: for a notebook (`.ipynb`), its code cells' module (see
    `trainlint.notebook`), or one cell's code as an editor sends it."""
    if path == "-":
        return ProjectView()
    root = project_root([path], config.source.parent if config.source else None)
    others = [other for other in _project_files(root, config) if os.path.abspath(other) != os.path.abspath(path)]
    context = imported_files([path], others, str(root), texts={path: text.encode("utf-8")}) if others else []
    facts: dict[str, FileFacts] = {}
    graph = functools.cache(lambda: ImportGraph(str(root), [*others, path], ()))  # only for a file with no summary
    for other in context:
        found = _facts_of(other, graph)
        if found is not None:
            facts[other] = found
    if not facts:
        return ProjectView()
    from trainlint.engine import lint_text  # parses: not loaded by a run that reads only the cache

    # the tree is kept for the lint that follows with the view: one parse of the text
    own = lint_text(path, text, [], None, ProjectView(summarize=True, keep_tree=True)).facts
    if own is None:
        return ProjectView()
    facts[path] = own
    return ProjectView(external=Project(root, facts, others).inputs(path))


def _project_files(root: Path, config: Config) -> list[str]:
    key = (str(root), str(config.source), tuple(config.exclude), tuple(config.extend_exclude),
           config.respect_gitignore)
    kept = _listings.get(key)
    now = time.monotonic()
    if kept is None or now - kept[0] > FILES_KEPT_S:
        _listings.clear()  # one project at a time is enough
        kept = _listings[key] = (now, discover([str(root)], config).files)
    return kept[1]


def _facts_of(path: str, graph: Callable[[], ImportGraph]) -> FileFacts | None:
    """What a module of the project does, as its file now says; None for a file
    that is no member of the project (`graph`: its files), which a run over the
    project does not read either (see `ProjectPass.plan`)."""
    try:
        stat = os.stat(path)
        stamp = (stat.st_mtime_ns, stat.st_size)
        kept = _facts.get(path)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        data = Path(path).read_bytes()
    except OSError:
        return None
    try:
        text = decode(data)[0]
    except SourceError:
        return None
    if not summarizable(path, text) and not graph().imports_project(graph().reach(path, text)):
        return None  # not kept: whether it imports the project depends on the project's files
    facts = analyse_bytes(path, data, (), None, ProjectView(summarize=True)).facts
    _facts[path] = (stamp, facts)
    return facts
