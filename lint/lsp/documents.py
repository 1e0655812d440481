"""What `trainlint check PATH` would report for an editor's buffer: the
configuration found for PATH, its selection, exclusions and per-file ignores,
and `# noqa`, applied to text that may not be saved yet."""

from __future__ import annotations

from pathlib import Path

from trainlint.buffer import buffer_view
from trainlint.config import Config, codes_for_file, find_config, load_config, matches_glob, select_rules
from trainlint.engine import FileOutcome, fix_one, lint_text
from trainlint.finding import Finding
from trainlint.project import ProjectView
from trainlint.registry import by_code
from trainlint.rule import Rule


def rules_for(path: Path, config: Config | None = None) -> list[type[Rule]]:
    """The rules the configuration found for `path` runs on it; none when it
    excludes the file. Raises ConfigError for a configuration to correct."""
    config = config or config_for(path)
    if matches_glob(path, config.root, [*config.exclude, *config.extend_exclude]):
        return []
    selection = select_rules(config.select, config.extend_select, config.ignore)
    known = by_code()
    return [known[code] for code in codes_for_file(path, selection, config)]


def config_for(path: Path) -> Config:
    return load_config(find_config(path), fallback_root=path.parent)


def lint_document(path: Path, text: str, fix: str | None = None) -> FileOutcome:
    """Findings of `text` as the file at `path` of its project (the modules it
    imports read from disk, see `trainlint.buffer`); with `fix` ("safe" or
    "unsafe"), also the text with every such fix applied."""
    config = config_for(path)
    rules = rules_for(path, config)
    return lint_text(str(path), text, rules, fix, buffer_view(str(path), text, config) if rules else ProjectView())


def fix_finding(path: Path, text: str, finding: Finding) -> str | None:
    """`text` with the fix of `finding` alone applied; None if it has none."""
    config = config_for(path)
    rules = rules_for(path, config)
    return fix_one(str(path), text, rules, finding, buffer_view(str(path), text, config) if rules else ProjectView())
