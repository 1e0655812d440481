"""What `trainlint check PATH` would report for an editor's buffer: the
configuration found for PATH, its selection, exclusions and per-file ignores,
and `# noqa`, applied to text that may not be saved yet.

An editor sends each code cell of a notebook as a document of its own (VS
Code: `vscode-notebook-cell:/path/nb.ipynb#...`): its text is one cell's code,
read as the notebook's cells are (IPython's magics and shell lines blanked,
see `trainlint.notebook`), under the notebook's configuration; fixes are
offered only in a cell without IPython syntax, as `--fix` makes them. An
editor that syncs the notebook as a whole (LSP's `notebookDocument/*`) has
its code cells linted together, as one module (`lint_notebook_cells`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Sequence
from urllib.parse import urlsplit

from trainlint.buffer import buffer_view
from trainlint.config import Config, codes_for_file, find_config, load_config, matches_glob, select_rules
from trainlint.engine import FileOutcome, broken_cells, fix_one, lint_text
from trainlint.finding import Finding
from trainlint.notebook import cell_module, cell_text, from_cells, is_notebook
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


def is_cell(uri: str, path: str) -> bool:
    """Whether the document `uri` is a cell of the notebook at `path`, not a file."""
    return is_notebook(path) and urlsplit(uri).scheme != "file"


def lint_document(path: Path, text: str, fix: str | None = None, cell: bool = False) -> FileOutcome:
    """Findings of `text` as the file at `path` of its project (the modules it
    imports read from disk, see `trainlint.buffer`); with `fix` ("safe" or
    "unsafe"), also the text with every such fix applied. `cell`: `text` is one
    code cell of the notebook at `path`."""
    config = config_for(path)
    rules = rules_for(path, config)
    source, plain = cell_module(text) if cell else (text, True)
    view = buffer_view(str(path), source, config) if rules else ProjectView()
    outcome = lint_text(str(path), source, rules, fix if plain else None, view)
    if not plain:  # the cell's code is not the module's lines: no fix can be written into it
        outcome.findings = [replace(finding, fixable=False, fix=None) for finding in outcome.findings]
    elif cell and outcome.fixed_source is not None:
        outcome.fixed_source = cell_text(outcome.fixed_source, text)
    return outcome


def lint_notebook_cells(path: Path, cells: Sequence[str | None]) -> FileOutcome:
    """Findings of the notebook at `path` as the editor holds it open (the text
    of each code cell, None for another cell), read as `trainlint check`
    reads the notebook: its code cells as one module, so that what one cell
    defines counts in the next; each finding placed in its cell (`cell`, from
    1). Fixes are those of each cell's own text (see `lint_document`)."""
    config = config_for(path)
    rules = rules_for(path, config)
    notebook = from_cells(cells)
    view = buffer_view(str(path), notebook.source, config) if rules else ProjectView()
    outcome = lint_text(str(path), notebook.source, rules, None, view)
    outcome.findings = [notebook.relocate(finding) for finding in outcome.findings]
    outcome.findings += broken_cells(str(path), rules, notebook)
    return outcome


def fix_finding(path: Path, text: str, finding: Finding, cell: bool = False) -> str | None:
    """`text` with the fix of `finding` alone applied; None if it has none (or,
    in a cell, `text` has IPython syntax)."""
    config = config_for(path)
    rules = rules_for(path, config)
    source, plain = cell_module(text) if cell else (text, True)
    if not plain:
        return None
    fixed = fix_one(str(path), source, rules, finding, buffer_view(str(path), source, config) if rules else ProjectView())
    return cell_text(fixed, text) if cell and fixed is not None else fixed
