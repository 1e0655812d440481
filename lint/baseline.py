"""`--add-noqa`: a `# noqa: CODE` on every line that has a finding, so that
an existing codebase starts from a clean baseline and new code is held to the
rules. A code is added to a `# noqa` the line already has; a line that ends
inside a string (or after a backslash) cannot take a comment, and its finding
is then marked on the statement's last line, or left as it is."""

from __future__ import annotations

import re
import tokenize
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from trainlint.finding import Finding
from trainlint.fixes import write_atomic
from trainlint.notebook import NotebookError, is_notebook, read_notebook, rewrite
from trainlint.notebook import encoding as notebook_encoding
from trainlint.source import SourceError, decode, encoding_to_write
from trainlint.suppression import comment_line, comment_places, noqa_directives

# a line with its ending, numbered as tokenize and LibCST number lines (a
# form feed or U+2028 inside a line does not end it, as str.splitlines has it)
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")

# what a noqa cannot or should not cover: a file that does not parse, and the
# finding that a noqa is unused
NOT_BASELINED = ("TL000", "TL001")


@dataclass
class Baseline:
    added: int = 0  # codes added
    files: int = 0  # files changed
    left: list[Finding] = field(default_factory=list)  # findings no comment could be put on
    errors: list[str] = field(default_factory=list)


def add_noqa(findings: Sequence[Finding]) -> Baseline:
    result = Baseline()
    by_path: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings:
        if finding.code not in NOT_BASELINED:
            by_path[finding.path].append(finding)
    for path, found in by_path.items():
        _baseline_file(path, found, result)
    return result


def _baseline_file(path: str, findings: list[Finding], result: Baseline) -> None:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        result.errors.append(f"{path}: cannot add noqa comments: {exc.strerror or exc}")
        return
    if is_notebook(path):
        _baseline_notebook(path, data, findings, result)
        return
    try:
        text, encoding = decode(data)
    except SourceError as exc:
        result.errors.append(f"{path}: cannot add noqa comments: {exc}")
        return
    marked = _marked(path, text, [(f, f.line, f.end_line) for f in findings], result)
    if marked is not None:
        _write(path, marked[0], encoding_to_write(data, encoding), marked[1], result)


def _baseline_notebook(path: str, data: bytes, findings: list[Finding], result: Baseline) -> None:
    """The comments go into the cells' lines, as `--fix` writes a notebook
    (see `notebook.rewrite`): each into its line of the module of the code
    cells, then the changed lines into their cells, every other byte kept."""
    try:
        notebook = read_notebook(data)
    except NotebookError as exc:
        result.errors.append(f"{path}: cannot add noqa comments: {exc.message}")
        return
    placed = []
    for finding in findings:
        if finding.cell not in notebook.cells:
            result.left.append(finding)
            continue
        first = notebook.starts[notebook.cells.index(finding.cell)] - 1
        placed.append((finding, first + finding.line, first + finding.end_line))
    marked = _marked(path, notebook.source, placed, result)
    if marked is None:
        return
    written = rewrite(notebook, marked[0])
    if written is None or written.text is None:
        result.errors.append(f"{path}: cannot add noqa comments: its cells cannot be written back exactly "
                             "(a JSON layout that is not kept byte for byte)")
        return
    _write(path, written.text, notebook_encoding(data), marked[1], result)


def _marked(path: str, text: str, findings: list[tuple[Finding, int, int]], result: Baseline) -> tuple[str, int] | None:
    """`text` with a `# noqa` for each finding (given with its first and last
    line in `text`), and the number of codes added; None when none is."""
    lines = _LINE.findall(text)
    try:
        ends, comments = comment_places(text)
    except (tokenize.TokenError, SyntaxError) as exc:
        result.errors.append(f"{path}: cannot add noqa comments: {exc}")
        return None
    codes: dict[int, list[str]] = defaultdict(list)
    open_ends = set(ends)
    for finding, first, last in findings:
        line = next((n for n in (first, last) if n in open_ends), None)
        if line is None:  # the statement's last line, where a `# noqa` covers it (see `NoqaUsage`)
            line = comment_line(ends, first)
        if line is None:
            result.left.append(finding)
        elif finding.code not in codes[line]:
            codes[line].append(finding.code)
    if not codes:
        return None
    for line, new in codes.items():
        lines[line - 1] = _with_codes(lines[line - 1], comments.get(line), new)
    return "".join(lines), sum(len(c) for c in codes.values())


def _write(path: str, text: str, encoding: str, added: int, result: Baseline) -> None:
    try:
        write_atomic(path, text, encoding=encoding)
    except OSError as exc:
        result.errors.append(f"{path}: cannot write noqa comments: {exc.strerror or exc}")
        return
    result.added += added
    result.files += 1


def _with_codes(line: str, comment: tuple[int, str] | None, codes: list[str]) -> str:
    body = line.rstrip("\r\n")
    newline = line[len(body):]
    if comment is not None:
        column, value = comment
        directive = next((d for d in noqa_directives(value) if d.codes), None)
        if directive is not None:
            merged = [*directive.codes, *(c for c in codes if c not in directive.codes)]
            value = f"{value[: directive.start]}# noqa: {', '.join(merged)}{value[directive.end :]}"
            return body[:column] + value + body[column + len(comment[1]) :] + newline
    return f"{body}  # noqa: {', '.join(codes)}{newline}"
