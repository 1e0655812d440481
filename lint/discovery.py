"""Which files to lint: Python files under the given paths, minus what the
defaults, the configuration and (in folders) `.gitignore` files exclude."""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Sequence

from trainlint.config import Config, matches_glob
from trainlint.gitignore import GitIgnore

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


def discover(paths: Sequence[str], config: Config, config_of: Callable[[str], Config] | None = None) -> Discovery:
    """The Python files under `paths`. `config_of(folder)`: the configuration whose
    `exclude` applies in that folder (the nearest one, for subprojects with their own);
    `config` everywhere when not given."""
    result = Discovery()
    seen: set[str] = set()
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


def _walk(top: str, top_config: Config, result: Discovery, seen: set[str], config_of: Callable[[str], Config]) -> None:
    ignores = {top: GitIgnore.for_directory(top)} if top_config.respect_gitignore else {}
    for directory, dirnames, filenames in _directories(top, result):
        gitignore = ignores.pop(directory, None)
        config = config_of(os.path.abspath(directory))
        configured = [*config.exclude, *config.extend_exclude]
        kept = []
        for name in sorted(dirnames):
            full = os.path.join(directory, name)
            if _excluded(Path(full), DEFAULT_EXCLUDES, config, configured):
                continue
            if gitignore is not None and gitignore.ignored(full, is_dir=True):
                continue
            kept.append(name)
            if gitignore is not None:
                ignores[full] = gitignore.child(full)
        dirnames[:] = kept
        real_directory = os.path.realpath(directory)
        for name in sorted(filenames):
            full = os.path.join(directory, name)
            if not name.endswith(".py") or _excluded(Path(full), (), config, configured):
                continue
            if gitignore is None or not gitignore.ignored(full, is_dir=False):
                # the real path of a file that is no link is its real folder's, one lstat instead of one per folder
                real = os.path.realpath(full) if os.path.islink(full) else os.path.join(real_directory, name)
                _add(result, seen, os.path.normpath(full), real)


def _directories(top: str, result: Discovery) -> Iterator[tuple[str, list[str], list[str]]]:
    """`os.walk` from `top`, following symbolic links but not their loops;
    pruning the yielded folder names prunes the walk."""

    def on_error(error: OSError) -> None:
        result.errors.append(f"{error.filename}: {error.strerror or error}")

    visited: set[tuple[int, int]] = set()
    for directory, dirnames, filenames in os.walk(top, onerror=on_error, followlinks=True):
        try:
            stat = os.stat(directory)
        except OSError as exc:
            result.errors.append(f"{directory}: {exc.strerror}")
            dirnames[:] = []
            continue
        if (stat.st_dev, stat.st_ino) in visited:  # a symlink loop
            dirnames[:] = []
            continue
        visited.add((stat.st_dev, stat.st_ino))
        yield directory, dirnames, filenames


def _excluded(path: Path, defaults: Sequence[str], config: Config, configured: list[str]) -> bool:
    if any(fnmatch.fnmatchcase(path.name, pattern) for pattern in defaults):
        return True
    return bool(configured) and matches_glob(path, config.root, configured)


def _add(result: Discovery, seen: set[str], path: str, real: str | None = None) -> None:
    key = real or os.path.realpath(path)
    if key not in seen:
        seen.add(key)
        result.files.append(path)
