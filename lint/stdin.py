"""Source read from standard input, as editors and format-on-save tools pipe
it: `trainlint - --stdin-filename src/train.py`. The file name decides the
configuration, the per-file ignores and the exclusion, as if the text were
that file on disk, and the project modules it imports are read for what their
functions do (see `trainlint.buffer`), a notebook's (`--stdin-filename
nb.ipynb`) as its code cells import them; nothing is written to the disk."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from trainlint.config import Config, Selection, codes_for_file, matches_glob
from trainlint.buffer import buffer_view
from trainlint.notebook import is_notebook, notebook_source
from trainlint.project import ProjectView
from trainlint.runner import analyse_bytes
from trainlint.source import SourceError, decode, encoding_to_write

if TYPE_CHECKING:
    from trainlint.engine import FileOutcome

UNNAMED = "-"


def lint_stdin(data: bytes, path: str, selection: Selection, config: Config, fix: str | None) -> FileOutcome | None:
    """The outcome of linting `data` as `path`; None when the configuration
    excludes `path` (an editor then shows nothing and keeps the text)."""
    if path != UNNAMED and matches_glob(Path(path), config.root, [*config.exclude, *config.extend_exclude]):
        return None
    try:
        text = notebook_source(data) if is_notebook(path) else decode(data)[0]
        view = buffer_view(path, text, config) if text is not None else ProjectView()
    except SourceError:
        view = ProjectView()  # the text is reported as unreadable below
    return analyse_bytes(path, data, codes_for_file(Path(path), selection, config), fix, view)


def fixed_bytes(data: bytes, outcome: FileOutcome | None) -> bytes:
    """What `--fix` writes to stdout: the fixed text in the input's encoding,
    or the input unchanged, byte for byte."""
    if outcome is None or outcome.fixed_source is None:
        return data
    return outcome.fixed_source.encode(encoding_to_write(data, outcome.encoding))
