"""Which files to lint: Python files under the given paths, minus what the
defaults, the configuration and (in folders) `.gitignore` files exclude. A
walk lints `*.py` files, and the files the configuration's `extend-include`
globs match (`*.ipynb`: notebooks), but those in Jupyter's `.ipynb_checkpoints`
folders (its autosaved copies); a file named as a path is linted whatever its name."""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Sequence

from trainlint.config import Config, matches_glob
from trainlint.gitignore import GitIgnore
from trainlint.notebook import SUFFIX as NOTEBOOK_SUFFIX

# Jupyter's autosaved copies of the notebooks beside it: never linted as included files
CHECKPOINTS = ".ipynb_checkpoints"
DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".venv", "venv", ".env", "env", "virtualenv", ".tox", ".nox",
    "build", "dist", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache",
    ".trainlint_cache", "node_modules", "site-packages", ".eggs", "*.egg-info",
)


@dataclass
class Discovery:
    files: list[str] = field(default_factory=list)  # as the user will see them
    errors: list[str] = field(default_factory=list)  # paths that could not be walked
    excluded: list[str] = field(default_factory=list)  # paths given but excluded by the configuration
    # files and folders met in a walk that the configured `exclude` globs skipped
    excluded_in_walk: list[str] = field(default_factory=list)
    # notebooks a walk met and left out (no `extend-include` takes them): said when nothing else is found
    notebooks_left: int = 0


def discover(paths: Sequence[str], config: Config, config_of: Callable[[str], Config] | None = None) -> Discovery:
    """The Python files under `paths`. `config_of(folder)`: the configuration whose
    `exclude` applies in that folder (the nearest one, for subprojects with their own);
    `config` everywhere when not given. As git and ruff walk a tree, a symbolic
    link to a folder is not followed (a data/ link to a mount, a checkout's link
    to another project) and a link that points nowhere is skipped; a folder or
    file named as a path is linted whether it is a link or not."""
    result = Discovery()
    seen: dict[str, tuple[int, bool]] = {}
    for given in paths:
        path = Path(given)
        if not path.exists() and not path.is_symlink():
            result.errors.append(f"{given}: no such file or directory")
        elif path.is_file() or (path.is_symlink() and not path.is_dir()):
            # an explicit file is linted unless the configuration excludes it
            own = config_of(os.path.dirname(os.path.abspath(given))) if config_of is not None else config
            if matches_glob(path, own.root, [*own.exclude, *own.extend_exclude]):
                result.excluded.append(given)
            else:
                _add(result, seen, given)
        elif path.is_dir():
            _walk(given, config, result, seen, config_of or (lambda folder: config))
        else:
            result.errors.append(f"{given}: not a regular file or directory")
    return result


def _walk(top: str, top_config: Config, result: Discovery, seen: dict[str, tuple[int, bool]],
          config_of: Callable[[str], Config]) -> None:
    ignores = {top: GitIgnore.for_directory(top)} if top_config.respect_gitignore else {}
    # the folders in Jupyter's autosave folders, known from their parents' as the walk goes
    autosaved = {top} if CHECKPOINTS in Path(top).parts else set()
    for directory, dirnames, filenames in _directories(top, result):
        gitignore = ignores.pop(directory, None)
        in_checkpoints = directory in autosaved
        autosaved.discard(directory)
        config = config_of(os.path.abspath(directory))
        configured = [*config.exclude, *config.extend_exclude]
        kept = []
        for name in sorted(dirnames):
            full = os.path.join(directory, name)
            if os.path.islink(full) or _excluded(Path(full), DEFAULT_EXCLUDES, config, []):
                continue
            if _excluded(Path(full), (), config, configured):
                result.excluded_in_walk.append(full)
                continue
            if gitignore is not None and gitignore.ignored(full, is_dir=True):
                continue
            kept.append(name)
            if in_checkpoints or name == CHECKPOINTS:
                autosaved.add(full)
            if gitignore is not None:
                ignores[full] = gitignore.child(full)
        dirnames[:] = kept
        real_directory = os.path.realpath(directory)
        included = [*config.extend_include] if config.extend_include and not in_checkpoints else []
        for name in sorted(filenames):
            full = os.path.join(directory, name)
            if not name.endswith(".py") and not (included and matches_glob(Path(full), config.root, included)):
                if name.endswith(NOTEBOOK_SUFFIX) and not included and not in_checkpoints:
                    result.notebooks_left += 1
                continue
            if _excluded(Path(full), (), config, configured):
                result.excluded_in_walk.append(full)
                continue
            if gitignore is not None and gitignore.ignored(full, is_dir=False):
                continue
            if not os.path.islink(full):
                # the real path of a file that is no link is its real folder's, one lstat instead of one per folder
                _add(result, seen, os.path.normpath(full), os.path.join(real_directory, name))
            elif os.path.exists(full):  # a link that points nowhere is no file of the tree
                _add(result, seen, os.path.normpath(full), os.path.realpath(full), link=True)


def _directories(top: str, result: Discovery) -> Iterator[tuple[str, list[str], list[str]]]:
    """`os.walk` from `top`, which does not follow symbolic links to folders;
    pruning the yielded folder names prunes the walk."""

    def on_error(error: OSError) -> None:
        result.errors.append(f"{error.filename}: {error.strerror or error}")

    yield from os.walk(top, onerror=on_error)


def _excluded(path: Path, defaults: Sequence[str], config: Config, configured: list[str]) -> bool:
    if any(fnmatch.fnmatchcase(path.name, pattern) for pattern in defaults):
        return True
    return bool(configured) and matches_glob(path, config.root, configured)


def _add(result: Discovery, seen: dict[str, tuple[int, bool]], path: str, real: str | None = None,
         link: bool = False) -> None:
    """Add `path` unless its file is listed already. A file reached both through a
    symbolic link and as itself is listed once, under its own path (where its
    findings belong); `link`: `path` is a symbolic link."""
    key = real or os.path.realpath(path)
    link = link or (real is None and os.path.islink(path))
    listed = seen.get(key)
    if listed is None:
        seen[key] = (len(result.files), link)
        result.files.append(path)
    elif listed[1] and not link:
        result.files[listed[0]] = path
        seen[key] = (listed[0], False)
