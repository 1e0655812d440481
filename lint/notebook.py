"""Jupyter notebooks (`.ipynb`): their code cells, in order, read as one module,
as the kernel runs them one after the other in one namespace.

IPython's own syntax (line magics `%time f()`, shell lines `!pip install x`,
`files = !ls`, help `obj?`, cell magics `%%bash`) is no Python: such a line
is blanked (a `pass` where it is the only statement of a block, so that the
block still parses), and a cell whose cell magic runs something else than
Python (`%%bash`, `%%writefile`, `%%html`) is blanked whole. No line moves:
line N of cell C is one line of the module, and a finding found there is
reported as cell C, line N (`relocate`). The cells are numbered as the
notebook shows them, from 1, markdown and raw cells included: `cells[C - 1]`
of the JSON.

Fixes are made to that module, then written back into the cells they
changed (`rewrite`): only into cells without IPython syntax, each `source`
in its own shape (a list of lines or one string), and nothing else of the
JSON touched; a notebook that cannot be written back so is not fixed.

Needs neither LibCST nor anything else beyond the standard library: the
import screen (`trainlint.imports`) reads notebooks too."""

from __future__ import annotations

import bisect
import difflib
import json
import re
from dataclasses import dataclass, replace
from json.decoder import scanstring
from typing import Iterator, Sequence

from trainlint.finding import Finding
from trainlint.source import LINE_BREAK

SUFFIX = ".ipynb"

# cell magics whose body is Python run by the kernel (timed, profiled, captured):
# only the magic's own line is blanked
_PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "python", "python3", "debug", "pypy"})
# `files = !ls`, `t = %timeit -o f()`: the target stays bound (to None)
_ASSIGNED_MAGIC = re.compile(r"^(\s*[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*)[!%].*$")
# `obj?`, `obj.method??`, `?obj`, `%magic?`
_HELP = re.compile(r"^\s*(?:\?\??[\w.*%]*|%?[\w.*\[\]]+\?\??)\s*$")


def is_notebook(path: str) -> bool:
    return path.endswith(SUFFIX)


class NotebookError(Exception):
    """Bytes that are no notebook; `line` and `column` (1-based) are in the
    file as stored, where the JSON is wrong."""

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.message, self.line, self.column = message, line, column


@dataclass(frozen=True)
class Notebook:
    source: str  # the code cells as one module, IPython syntax blanked
    cells: tuple[int, ...]  # the number of each code cell in the notebook (from 1)
    starts: tuple[int, ...]  # the module's line where each code cell begins (from 1)
    lines: tuple[tuple[str, ...], ...]  # each code cell's lines as the module has them
    python: bool = True  # False: the kernel runs another language; nothing is linted

    def locate(self, line: int) -> tuple[int, int] | None:
        """(the code cell's index in `cells`, line within that cell) of the module's `line`."""
        if not self.starts:
            return None
        index = max(bisect.bisect_right(self.starts, line) - 1, 0)
        return index, line - self.starts[index] + 1

    def relocate(self, finding: Finding, fixable: bool = False) -> Finding:
        """`finding`, found in the module, in the notebook's terms: its cell, and
        its lines within that cell. A range that runs past its cell (a string
        left open runs on into the next cells) ends at the cell's end. It is
        marked fixable only when `fixable` says that its fix can be written
        into the notebook (see `rewrite`)."""
        fixable = fixable and finding.fix is not None
        fix = finding.fix if fixable else None
        start = self.locate(finding.line)
        if start is None:
            return replace(finding, fixable=fixable, fix=fix)
        index, line = start
        lines = self.lines[index]
        line = min(max(line, 1), max(len(lines), 1))
        end_line = finding.end_line - self.starts[index] + 1
        end_column = finding.end_column
        if end_line > len(lines) or end_line < line:
            end_line = line
            end_column = max(finding.column, len(lines[line - 1]) + 1 if lines else 1)
        return replace(finding, line=line, end_line=end_line, end_column=end_column, cell=self.cells[index],
                       fixable=fixable, fix=fix)


def read_notebook(data: bytes) -> Notebook:
    """The notebook stored as `data` (nbformat 4, or 3's worksheets); raises
    NotebookError when it is not valid JSON or not shaped like a notebook."""
    try:
        document = json.loads(data)
    except json.JSONDecodeError as exc:
        raise NotebookError(f"notebook is not valid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise NotebookError(f"notebook cannot be decoded as JSON text: {exc}") from None
    if not isinstance(document, dict):
        raise NotebookError(f"not a Jupyter notebook: the JSON is a {type(document).__name__}, not an object")
    cells = document.get("cells")
    if cells is None and isinstance(document.get("worksheets"), list):  # nbformat 3
        cells = [cell for sheet in document["worksheets"] if isinstance(sheet, dict)
                 for cell in (sheet.get("cells") or [])]
    if not isinstance(cells, list):
        raise NotebookError("not a Jupyter notebook: no list of 'cells'")
    if not _runs_python(document.get("metadata")):
        return Notebook("", (), (), (), python=False)
    numbers, starts, all_lines = [], [], []
    next_line = 1
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            raise NotebookError(f"not a Jupyter notebook: cell {number} is no JSON object")
        if cell.get("cell_type") != "code":
            continue
        text = _text(cell.get("source", cell.get("input", "")), number)
        lines = tuple(code_lines(text))
        numbers.append(number)
        starts.append(next_line)
        all_lines.append(lines)
        next_line += len(lines)
    source = "".join(line + "\n" for lines in all_lines for line in lines)
    return Notebook(source, tuple(numbers), tuple(starts), tuple(all_lines))


def notebook_source(data: bytes) -> str | None:
    """The module of the notebook stored as `data`; None when it is none."""
    try:
        notebook = read_notebook(data)
    except NotebookError:
        return None
    return notebook.source if notebook.python else None


def _runs_python(metadata: object) -> bool:
    """Whether the notebook's kernel runs Python (what it does not say, it is taken to)."""
    if not isinstance(metadata, dict):
        return True
    for table, key in (("kernelspec", "language"), ("language_info", "name")):
        info = metadata.get(table)
        language = info.get(key) if isinstance(info, dict) else None
        if isinstance(language, str) and language.strip():
            return language.strip().lower().startswith(("python", "ipython"))
    return True


def _text(source: object, number: int) -> str:
    """A cell's source: a string, or a list of strings (its lines, as nbformat writes it)."""
    if isinstance(source, str):
        return source
    if isinstance(source, list) and all(isinstance(part, str) for part in source):
        return "".join(source)
    raise NotebookError(f"not a Jupyter notebook: the source of cell {number} is not text")


def code_lines(text: str) -> list[str]:
    """The lines of one code cell, IPython's syntax blanked, one per line of the cell."""
    lines = LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()  # the cell's last line end, or an empty cell
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        name = lines[first].lstrip()[2:].split(maxsplit=1)
        if not name or name[0] not in _PYTHON_CELL_MAGICS:
            return ["" for _ in lines]  # the body is another language, or text for the magic
        lines[first] = ""
    return _blank_magics(lines)


def _blank_magics(lines: Sequence[str]) -> list[str]:
    """`lines` with each IPython line (one that begins a statement) blanked.
    Brackets, strings and backslashes are followed, so that `% x` continuing
    an expression or a `!` inside a string stays as it is."""
    out: list[str] = []
    scanner = _Scanner()
    continued = False  # the line before was IPython's and ended with a backslash
    for line in lines:
        if continued:
            out.append("")
        elif scanner.at_statement and _is_magic(line):
            assigned = _ASSIGNED_MAGIC.match(line)
            out.append(assigned.group(1) + "None" if assigned is not None else _placeholder(line))
        else:
            out.append(line)
            scanner.scan(line)
            continue
        continued = line.endswith("\\")
    return out


def _is_magic(line: str) -> bool:
    stripped = line.lstrip()
    if stripped.startswith(("%", "!")):
        return True
    return _ASSIGNED_MAGIC.match(line) is not None or _HELP.match(line) is not None


def _placeholder(line: str) -> str:
    """Nothing, or `pass` at the line's indentation when it is indented: it
    may be the only statement of its block."""
    indent = line[: len(line) - len(line.lstrip())]
    return f"{indent}pass" if indent else ""


class _Scanner:
    """Whether the next line begins a statement: no bracket, triple-quoted
    string or backslash continuation is open at the end of the lines seen."""

    def __init__(self) -> None:
        self.depth = 0
        self.quote: str | None = None
        self.backslash = False

    @property
    def at_statement(self) -> bool:
        return self.depth == 0 and self.quote is None and not self.backslash

    def scan(self, line: str) -> None:
        self.backslash = False
        i, size = 0, len(line)
        while i < size:
            char = line[i]
            if self.quote is not None:
                if char == "\\":
                    i += 2
                elif line.startswith(self.quote, i):
                    i += len(self.quote)
                    self.quote = None
                else:
                    i += 1
                continue
            if char == "#":
                break
            if char in "'\"":
                self.quote = char * 3 if line.startswith(char * 3, i) else char
                i += len(self.quote)
                continue
            if char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(self.depth - 1, 0)
            elif char == "\\" and i == size - 1:
                self.backslash = True
            i += 1
        if self.quote is not None and len(self.quote) == 1 and not line.endswith("\\"):
            self.quote = None  # a one-quote string ends with its line (or does not parse)


# --- writing fixes back ----------------------------------------------------------------

_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _skip(text: str, at: int) -> int:
    """Where the JSON white space at `at` ends."""
    return _SPACE.match(text, at).end()  # type: ignore[union-attr]


def rewrite(data: bytes, notebook: Notebook, fixed: str) -> str | None:
    """The text of the notebook stored as `data` with the code cells changed
    as `fixed` (the fixed text of `notebook.source`) has them; None when that
    cannot be written exactly: a change that falls in a cell with IPython
    syntax (its lines are not the cell's), or runs across two cells, or a
    JSON layout this does not reproduce byte for byte. Only the `source`
    values of the changed cells differ from `data`: indentation, key order,
    outputs, metadata and the last line end are kept."""
    if not notebook.python or data.startswith(b"\xef\xbb\xbf"):
        return None
    try:
        text = data.decode("utf-8")
        document = json.loads(text)
    except ValueError:
        return None
    changed = _changed_cells(notebook, fixed)
    if changed is None:
        return None
    if not changed:
        return text
    spans = _source_spans(text)
    if spans is None:
        return None
    cells = document.get("cells") if isinstance(document, dict) else None
    edits: list[tuple[int, int, str]] = []
    for index, lines in changed.items():
        number = notebook.cells[index]
        span = spans.get(number)
        if span is None or not isinstance(cells, list) or len(cells) < number:
            return None
        old = cells[number - 1]["source"]
        old_text = _text(old, number)
        if not _clean(old_text, notebook.lines[index]):
            return None  # IPython syntax in the cell: its code is not the module's lines
        new_text = "\n".join(lines) + ("\n" if lines and old_text.endswith("\n") else "")
        written = _dump_like(text[span[0]:span[1]], old, new_text)
        if written is None:
            return None
        cells[number - 1]["source"] = new_text if isinstance(old, str) else new_text.splitlines(keepends=True)
        edits.append((span[0], span[1], written))
    for start, end, written in sorted(edits, reverse=True):
        text = text[:start] + written + text[end:]
    # what was written reads back as the fixed notebook, and as the fixed module
    try:
        if json.loads(text) != document or read_notebook(text.encode("utf-8")).source != fixed:
            return None
    except (ValueError, NotebookError):
        return None
    return text


def cell_module(text: str) -> tuple[str, bool]:
    """One code cell's `text` as a module (IPython's syntax blanked, see
    `code_lines`), and whether that module is the cell's text itself (no line
    blanked, only `\\n` line ends): a fix of the module is then a fix of the cell."""
    lines = tuple(code_lines(text))
    return "".join(line + "\n" for line in lines), _clean(text, lines)


def cell_text(fixed: str, text: str) -> str:
    """The fixed module of a cell whose `text` is that module (see `cell_module`),
    as the cell's text: its last line end only if the cell had one."""
    return fixed[:-1] if fixed.endswith("\n") and not text.endswith("\n") else fixed


def _clean(text: str, lines: tuple[str, ...]) -> bool:
    """Whether a cell's `text` is exactly its module `lines`, each ended by `\\n`
    (the last one maybe not): no IPython line was blanked, no other line end."""
    if "\r" in text:
        return False
    raw = text.split("\n")
    if raw and raw[-1] == "":
        raw.pop()
    return tuple(raw) == lines


def _changed_cells(notebook: Notebook, fixed: str) -> dict[int, list[str]] | None:
    """The new lines of each code cell (by index in `notebook.cells`) that the
    fixed module changes; None when a change runs across two cells. A line
    inserted between two cells goes to the end of the first (an import added
    below the imports of a cell), one inserted before the first line to the
    first cell."""
    old = [line for lines in notebook.lines for line in lines]
    owner = [index for index, lines in enumerate(notebook.lines) for _ in lines]
    new = fixed.split("\n")
    if new and new[-1] == "":
        new.pop()
    if not owner:
        return None
    result: list[list[str]] = [[] for _ in notebook.lines]
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2)):
                result[owner[i]].append(new[j])
            continue
        if i1 < i2:
            if owner[i1] != owner[i2 - 1]:
                return None
            cell = owner[i1]
        else:
            cell = owner[i1 - 1] if i1 > 0 else owner[0]
        result[cell].extend(new[j1:j2])
    return {index: lines for index, lines in enumerate(result) if tuple(lines) != notebook.lines[index]}


def _dump_like(raw: str, old: object, text: str) -> str | None:
    """`text` as JSON in the shape of the cell source `old`, stored as `raw`:
    one string, or a list of its lines laid out as that list is. None when
    `old` itself is not written back byte for byte so (the layout is not known)."""
    old_text = _text(old, 0)
    for ascii_only in (False, True):
        if isinstance(old, str):
            if json.dumps(old_text, ensure_ascii=ascii_only) == raw:
                return json.dumps(text, ensure_ascii=ascii_only)
            continue
        layout = _list_layout(raw)
        if layout is None or old_text.splitlines(keepends=True) != old:
            return None
        if _dump_list(old, layout, ascii_only) == raw:
            return _dump_list(text.splitlines(keepends=True), layout, ascii_only)
    return None


def _dump_list(items: list[str], layout: tuple[str, str], ascii_only: bool) -> str:
    lead, tail = layout
    if not items:
        return "[]"
    return "[" + lead + ("," + lead).join(json.dumps(item, ensure_ascii=ascii_only) for item in items) + tail + "]"


def _list_layout(raw: str) -> tuple[str, str] | None:
    """The white space a JSON list of strings puts before each item and before
    its `]`, as `raw` has it; None for an empty list (nothing tells)."""
    if not raw.startswith("[") or not raw.endswith("]"):
        return None
    lead = raw[1:_skip(raw, 1)]
    if raw[1 + len(lead):] == "]":
        return None
    last_quote = raw.rstrip("]").rstrip(" \t\n\r")
    return lead, raw[len(last_quote):-1]


def _source_spans(text: str) -> dict[int, tuple[int, int]] | None:
    """Where, in the notebook's JSON `text`, the `source` value of each cell
    begins and ends, by cell number (from 1); None when the text is no
    nbformat 4 object with one `cells` list (a key given twice, worksheets)."""
    spans: dict[int, tuple[int, int]] = {}
    try:
        found = False
        for key, start in _members(text, _skip(text, 0)):
            if key != "cells":
                continue
            if found or not text.startswith("[", start):
                return None
            found = True
            for number, cell in enumerate(_items(text, start), start=1):
                if not text.startswith("{", cell):
                    return None
                for name, value in _members(text, cell):
                    if name == "source":
                        if number in spans:
                            return None
                        spans[number] = (value, _DECODER.raw_decode(text, value)[1])
        return spans if found else None
    except (ValueError, IndexError, StopIteration):
        return None


def _members(text: str, at: int) -> Iterator[tuple[str, int]]:
    """(key, where its value begins) of the JSON object at `at`; each value is
    skipped unless the caller walks into it before asking for the next."""
    if not text.startswith("{", at):
        raise ValueError("no object")
    at = _skip(text, at + 1)
    if text.startswith("}", at):
        return
    while True:
        if not text.startswith('"', at):
            raise ValueError("no key")
        key, at = scanstring(text, at + 1)
        at = _skip(text, at)
        if not text.startswith(":", at):
            raise ValueError("no colon")
        at = _skip(text, at + 1)
        yield key, at
        at = _skip(text, _DECODER.raw_decode(text, at)[1])
        if text.startswith("}", at):
            return
        if not text.startswith(",", at):
            raise ValueError("no comma")
        at = _skip(text, at + 1)


def _items(text: str, at: int) -> Iterator[int]:
    """Where each value of the JSON array at `at` begins."""
    at = _skip(text, at + 1)
    if text.startswith("]", at):
        return
    while True:
        yield at
        at = _skip(text, _DECODER.raw_decode(text, at)[1])
        if text.startswith("]", at):
            return
        if not text.startswith(",", at):
            raise ValueError("no comma")
        at = _skip(text, at + 1)
