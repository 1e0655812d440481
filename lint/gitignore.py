"""What git ignores, so that discovery skips it: `.gitignore` files (nested
ones included) and `.git/info/exclude`, read with git's rules.

A pattern without a slash matches a name at any depth below its file's
folder; one with a leading or inner slash is anchored to that folder; a
trailing slash matches folders only; `!` re-includes; `**` spans folders.
The last matching pattern wins, and the patterns of a deeper file come after
those of its parents. A path inside an ignored folder stays ignored, because
discovery never enters that folder. Outside a git repository only the
`.gitignore` files at or below the folder being linted are read.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class Pattern:
    regex: re.Pattern[str]
    negated: bool
    dir_only: bool

    def matches(self, relative: str, is_dir: bool) -> bool:
        return (is_dir or not self.dir_only) and self.regex.fullmatch(relative) is not None


def parse_line(line: str) -> Pattern | None:
    """One line of a `.gitignore` file; None for blank lines and comments."""
    line = _strip_trailing_spaces(line.rstrip("\n\r"))
    if not line or line.startswith("#"):
        return None
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    dir_only = line.endswith("/") and not line.endswith("\\/")
    line = line.rstrip("/") if dir_only else line
    if not line:
        return None
    anchored = "/" in line
    body = _translate(line.lstrip("/"))
    try:
        regex = re.compile(body if anchored else f"(?:.*/)?{body}", re.DOTALL)
    except re.error:
        return None  # a malformed character class: git matches nothing with it either
    return Pattern(regex, negated, dir_only)


def _strip_trailing_spaces(line: str) -> str:
    """Trailing spaces are dropped unless the last one is escaped."""
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(line):
        return stripped + " "
    return stripped


def _translate(glob: str) -> str:
    """A gitignore glob as a regular expression over a `/`-separated path."""
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        char = glob[i]
        if glob.startswith("**", i) and (i == 0 or glob[i - 1] == "/") and (i + 2 == n or glob[i + 2] == "/"):
            # `**/` at the start or `/**/`: any number of folders; a final `/**`: everything inside
            out.append("(?:.*/)?" if i + 2 < n else ".*")
            i += 3
        elif char == "*":
            while i < n and glob[i] == "*":
                i += 1
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[":
            i = _char_class(glob, i, out)
        elif char == "\\" and i + 1 < n:
            out.append(re.escape(glob[i + 1]))
            i += 2
        else:
            out.append(re.escape(char))
            i += 1
    return "".join(out)


def _char_class(glob: str, start: int, out: list[str]) -> int:
    """`[...]` at `start`; a `[` without its `]` is a literal."""
    end = glob.find("]", start + 2 if glob[start + 1 : start + 2] in ("!", "^", "]") else start + 1)
    if end == -1:
        out.append(re.escape("["))
        return start + 1
    inner = glob[start + 1 : end]
    if inner[:1] in ("!", "^"):
        inner = "^" + inner[1:]
    out.append("(?!/)[" + inner.replace("\\", "\\\\") + "]")
    return end + 1


@dataclass(frozen=True)
class _Rules:
    base: str  # absolute path of the folder the patterns are relative to
    patterns: tuple[Pattern, ...]
    # every pattern (for folders) and every pattern that can match a file,
    # as one expression: most paths match none, which one search tells
    any_dir: re.Pattern[str]
    any_file: re.Pattern[str]

    def verdict(self, relative: str, is_dir: bool, verdict: bool) -> bool:
        """The verdict after these patterns, given the one before them."""
        if (self.any_dir if is_dir else self.any_file).fullmatch(relative) is None:
            return verdict
        for pattern in self.patterns:
            # the last matching pattern wins: only one that would flip the verdict matters
            if pattern.negated == verdict and pattern.matches(relative, is_dir):
                verdict = not pattern.negated
        return verdict


def read_rules(file: str, base: str) -> _Rules | None:
    try:
        with open(file, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    patterns = tuple(p for p in map(parse_line, lines) if p is not None)
    if not patterns:
        return None
    return _Rules(base, patterns, _any_of(patterns), _any_of([p for p in patterns if not p.dir_only]))


def _any_of(patterns: Sequence[Pattern]) -> re.Pattern[str]:
    if not patterns:
        return re.compile("(?!)")  # matches nothing
    return re.compile("|".join(f"(?:{p.regex.pattern})" for p in patterns), re.DOTALL)


class GitIgnore:
    """The ignore rules in force in one folder. Paths are compared as
    absolute paths spelled as the walk reached them (no symlinks resolved),
    so that matching costs no system call."""

    def __init__(self, rules: tuple[_Rules, ...] = ()) -> None:
        self.rules = rules

    @classmethod
    def for_directory(cls, directory: str) -> GitIgnore:
        """The rules of `directory`: inside a repository, its
        `.git/info/exclude` and each `.gitignore` from the root down to
        here; outside one, only the folder's own `.gitignore`."""
        here = os.path.abspath(directory)
        root = _repository_root(here)
        rules: list[_Rules | None] = []
        folders = [here]
        if root is not None:
            rules.append(read_rules(os.path.join(root, ".git", "info", "exclude"), root))
            folders = _folders_between(root, here)
        rules.extend(read_rules(os.path.join(folder, ".gitignore"), folder) for folder in folders)
        return cls(tuple(r for r in rules if r is not None))

    def child(self, directory: str) -> GitIgnore:
        """The rules of a subfolder: these, then its own `.gitignore`."""
        base = os.path.abspath(directory)
        own = read_rules(os.path.join(base, ".gitignore"), base)
        return GitIgnore((*self.rules, own)) if own else self

    def ignored(self, path: str, is_dir: bool) -> bool:
        absolute = os.path.abspath(path)
        verdict = False
        for rules in self.rules:
            if not absolute.startswith(rules.base.rstrip(os.sep) + os.sep):
                continue
            relative = absolute[len(rules.base.rstrip(os.sep)) + 1 :].replace(os.sep, "/")
            verdict = rules.verdict(relative, is_dir, verdict)
        return verdict


def _repository_root(directory: str) -> str | None:
    folder = directory
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _folders_between(root: str, directory: str) -> list[str]:
    """`root`, then each folder down to `directory`."""
    folders = [directory]
    while folders[-1] != root:
        folders.append(os.path.dirname(folders[-1]))
    return folders[::-1]
