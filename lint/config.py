"""`[tool.trainlint]` configuration and rule selection."""

from __future__ import annotations

import fnmatch
import os
import posixpath
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence

from trainlint.manifest import manifest

if TYPE_CHECKING:
    from trainlint.rule import Rule

# `extend-ignore` and `extend-per-file-ignores` add to `ignore` and `per-file-ignores`,
# as the options of the same names do (ruff's configurations use them too)
KNOWN_KEYS = (
    "select", "ignore", "extend-select", "extend-ignore", "exclude", "extend-exclude", "per-file-ignores",
    "extend-per-file-ignores", "respect-gitignore", "extend-include",
)


class ConfigError(Exception):
    """A configuration or selection the user must correct (exit status 2)."""


@dataclass
class Config:
    root: Path  # directory that relative globs are matched against
    source: Path | None = None  # the file the settings came from
    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    extend_select: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    extend_exclude: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    respect_gitignore: bool = True  # skip what .gitignore files ignore when walking folders
    # globs of files a folder's walk lints beside `*.py` (`*.ipynb`: notebooks)
    extend_include: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # what the user should know of the file, short of an error


def find_config(start: Path) -> Path | None:
    """The nearest `pyproject.toml` at or above `start` with a `[tool.trainlint]` table."""
    directory = start if start.is_dir() else start.parent
    for candidate_dir in (directory, *directory.parents):
        candidate = candidate_dir / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(candidate.read_text(encoding="utf-8"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError):
                return candidate  # report the error when it is loaded
            tool = data.get("tool")
            if isinstance(tool, dict) and "trainlint" in tool:
                return candidate  # a value that is not a table is reported when it is loaded
    return None


def load_config(path: Path | None, explicit: bool = False, fallback_root: Path | None = None) -> Config:
    if path is None:
        return Config(root=(fallback_root or Path.cwd()).resolve())
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except (UnicodeDecodeError, OSError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    tool = data.get("tool")
    table = tool.get("trainlint") if isinstance(tool, dict) else None
    # a pyproject.toml, or a file shaped like one ([tool.ruff], shared with other tools)
    pyproject = path.name == "pyproject.toml" or isinstance(tool, dict)
    if table is None:
        table = data if explicit and not pyproject else {}  # a dedicated trainlint.toml: the keys at top level
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: 'tool.trainlint' must be a table ([tool.trainlint]), "
                          f"not {type(table).__name__} {table!r}")
    config = _from_table(table, path, "[tool.trainlint]" if pyproject or not explicit else "the file")
    if explicit and pyproject and not (isinstance(tool, dict) and "trainlint" in tool):
        config.warnings.append(f"{path} has no [tool.trainlint] table: the default settings apply")
    return config


def _from_table(table: dict[str, object], path: Path, section: str) -> Config:
    """The settings of `table`, the `section` of the file `path` (named in errors)."""
    unknown = sorted(set(table) - set(KNOWN_KEYS))
    if unknown:
        raise ConfigError(
            f"{path}: unknown key {', '.join(repr(k) for k in unknown)} in {section} "
            f"(known keys: {', '.join(KNOWN_KEYS)})"
        )
    config = Config(root=path.parent.resolve(), source=path)
    if "select" in table:
        config.select = _codes(table, "select", path)
    config.ignore = [*_codes(table, "ignore", path), *_codes(table, "extend-ignore", path)]
    config.extend_select = _codes(table, "extend-select", path)
    config.exclude = _strings(table, "exclude", path)
    config.extend_exclude = _strings(table, "extend-exclude", path)
    config.extend_include = _strings(table, "extend-include", path)
    respect = table.get("respect-gitignore", True)
    if not isinstance(respect, bool):
        raise ConfigError(f"{path}: 'respect-gitignore' must be true or false")
    config.respect_gitignore = respect
    config.per_file_ignores = _merged(_file_ignores(table, "per-file-ignores", path),
                                      _file_ignores(table, "extend-per-file-ignores", path))
    return config


def _file_ignores(table: dict[str, object], key: str, path: Path) -> dict[str, list[str]]:
    ignores = table.get(key, {})
    if not isinstance(ignores, dict):
        raise ConfigError(f"{path}: '{key}' must be a table of glob = [codes]")
    return {glob: _codes({glob: codes}, glob, path, where=key) for glob, codes in ignores.items()}


def _strings(table: dict[str, object], key: str, path: Path, label: str = "") -> list[str]:
    """The list of strings `table[key]`; `label` names it in errors (the key's own name by default)."""
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: {label or repr(key)} must be a list of strings, not {value!r}")
    return list(value)


def _codes(table: dict[str, object], key: str, path: Path, where: str = "") -> list[str]:
    """The codes `table[key]`; `where`: the table `table` is (a glob's entry of
    `per-file-ignores` is named as such, not as a key of its own)."""
    label = f"{where!r} entry {key!r}" if where else repr(key)
    values = _strings(table, key, path, label)
    for value in values:
        check_code(value, f"{path}: {label}")
    return [_selector(v) for v in values]


def _selector(value: str) -> str:
    """A selector as matched against codes: `ALL` (as other linters spell it) is `TL`."""
    upper = value.strip().upper()
    return "TL" if upper == "ALL" else upper


def check_code(value: str, context: str) -> None:
    """A selector must be a rule code or a prefix of at least one, or `ALL`."""
    upper = _selector(value)
    if not upper or not any(code.startswith(upper) for code in manifest().codes()):
        raise ConfigError(f"{context}: unknown rule code or prefix {value!r}")


def parse_code_list(text: str | None, option: str) -> list[str] | None:
    if text is None:
        return None
    codes = [_selector(c) for c in text.split(",") if c.strip()]
    for code in codes:
        check_code(code, f"option {option}")
    return codes


@dataclass(frozen=True)
class Selection:
    """Which rules run, as decided by select / extend-select / ignore. Held as
    codes: the rule classes are imported only when a file is analysed."""

    codes: tuple[str, ...]

    @property
    def rules(self) -> tuple[type[Rule], ...]:
        from trainlint.registry import by_code

        known = by_code()
        return tuple(known[code] for code in self.codes)

    def without(self, codes: Iterable[str]) -> Selection:
        ignored = list(codes)
        return Selection(tuple(code for code in self.codes if not _match(code, ignored)))


def select_rules(select: Sequence[str] | None, extend: Sequence[str], ignore: Sequence[str]) -> Selection:
    """The most specific selector decides: `--select TL1 --ignore TL101` runs
    every TL1xx rule but TL101. Preview rules run only when a selector names
    them or a prefix of them; the default selection leaves them out."""
    chosen = []
    for rule in manifest().rules:
        on = _specificity(rule.code, list(select or ()) + list(extend))
        off = _specificity(rule.code, ignore)
        if select is None and not rule.preview:
            on = max(on, 0)
        if on >= 0 and on > off:
            chosen.append(rule.code)
    return Selection(tuple(chosen))


def codes_for_file(path: Path, selection: Selection, config: Config) -> tuple[str, ...]:
    """The selected codes minus those `per-file-ignores` turns off for `path`."""
    ignored: list[str] = []
    for glob, codes in config.per_file_ignores.items():
        if matches_glob(path, config.root, [glob]):
            ignored.extend(codes)
    return (selection.without(ignored) if ignored else selection).codes


def _specificity(code: str, selectors: Sequence[str]) -> int:
    """Length of the longest selector that is a prefix of `code`, -1 if none."""
    return max((len(s) for s in selectors if code.startswith(s)), default=-1)


def _match(code: str, selectors: Sequence[str]) -> bool:
    return _specificity(code, selectors) >= 0


def matches_glob(path: Path, root: Path, patterns: Sequence[str]) -> bool:
    """gitignore-like matching: a pattern matches the path relative to `root`,
    any trailing part of it, or its name. A pattern is read as a normalized
    path (`./t.py` is `t.py`, as the shell completes it)."""
    try:
        # os.path.realpath, not Path.resolve: a symbolic link loop is a path like any other
        relative = Path(os.path.realpath(path)).relative_to(root).as_posix()
    except ValueError:
        relative = path.as_posix()
    parts = relative.split("/")
    for pattern in patterns:
        pattern = posixpath.normpath(pattern) if pattern else pattern
        if fnmatch.fnmatchcase(relative, pattern) or fnmatch.fnmatchcase(path.name, pattern):
            return True
        if "/" not in pattern and any(fnmatch.fnmatchcase(part, pattern) for part in parts):
            return True
        if fnmatch.fnmatchcase(relative, pattern + "/*"):
            return True
    return False


@dataclass
class Overrides:
    """Settings given on the command line; `None` keeps the configured value."""

    exclude: list[str] | None = None
    extend_exclude: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] | None = None
    extend_per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    respect_gitignore: bool | None = None
    extend_include: list[str] = field(default_factory=list)


def with_overrides(config: Config, overrides: Overrides) -> Config:
    """The configuration with command-line settings applied: `--exclude` and
    `--per-file-ignores` replace the configured values, the `--extend-`
    forms add to them (`--extend-include` too)."""
    return replace(
        config,
        exclude=list(config.exclude if overrides.exclude is None else overrides.exclude),
        extend_exclude=[*config.extend_exclude, *overrides.extend_exclude],
        extend_include=[*config.extend_include, *overrides.extend_include],
        per_file_ignores=_merged(
            config.per_file_ignores if overrides.per_file_ignores is None else overrides.per_file_ignores,
            overrides.extend_per_file_ignores,
        ),
        respect_gitignore=config.respect_gitignore if overrides.respect_gitignore is None else overrides.respect_gitignore,
    )


def _merged(base: dict[str, list[str]], extra: dict[str, list[str]]) -> dict[str, list[str]]:
    merged = {glob: list(codes) for glob, codes in base.items()}
    for glob, codes in extra.items():
        merged.setdefault(glob, []).extend(c for c in codes if c not in merged[glob])
    return merged


def parse_per_file_ignores(values: Sequence[str], option: str) -> dict[str, list[str]]:
    """`GLOB:CODE[,CODE...]` values, as `--per-file-ignores 'tests/*:TL401'`."""
    table: dict[str, list[str]] = {}
    for value in values:
        glob, sep, codes = value.rpartition(":")
        parsed = parse_code_list(codes, option) if sep and glob.strip() else None
        if not parsed:
            raise ConfigError(f"option {option}: expected GLOB:CODES (as 'tests/*:TL401,TL402'), got {value!r}")
        table.setdefault(glob.strip(), []).extend(c for c in parsed if c not in table.get(glob.strip(), []))
    return table
