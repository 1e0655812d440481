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
import codecs
import difflib
import functools
import itertools
import json
import re
from dataclasses import dataclass, field, replace
from json.decoder import scanstring
from typing import Callable, Iterator, Mapping, Sequence

from trainlint.finding import Finding
from trainlint.pyparser import python_tree
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
    # the code cells that are no Python alone (the kernel compiles each cell by itself):
    # (index in `cells`, the parser's message, the module's line and column of the
    # error); blanked in `source` and `lines`, so that the other cells are linted
    broken: tuple[tuple[int, str, int, int], ...] = ()
    # the notebook as stored, read once for `rewrite`: its JSON text (None when it is
    # no UTF-8 text), the document, and where each cell's `source` value lies in the
    # text, by cell number (None when that layout is not one `rewrite` writes into)
    text: str | None = field(default=None, compare=False, repr=False)
    document: object = field(default=None, compare=False, repr=False)
    spans: Mapping[int, tuple[int, int]] | None = field(default=None, compare=False, repr=False)

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


@functools.lru_cache(maxsize=4)
def read_notebook(data: bytes) -> Notebook:
    """The notebook stored as `data` (nbformat 4, or 3's worksheets); raises
    NotebookError when it is not valid JSON or not shaped like a notebook.
    The JSON is read once: the import screen, the project pass and the lint
    of one notebook in one process share what was read (a `Notebook` is not changed)."""
    text, document, spans = _load(data)
    if not isinstance(document, dict):
        raise NotebookError(f"not a Jupyter notebook: the JSON is a {type(document).__name__}, not an object")
    cells = document.get("cells")
    if cells is None and isinstance(document.get("worksheets"), list):  # nbformat 3
        cells = list(_worksheet_cells(document["worksheets"]))
    if not isinstance(cells, list):
        raise NotebookError("not a Jupyter notebook: no list of 'cells'")
    if not _runs_python(document.get("metadata")):
        return Notebook("", (), (), (), python=False)
    codes: list[str | None] = []
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            raise NotebookError(f"not a Jupyter notebook: cell {number} is no JSON object")
        is_code = cell.get("cell_type") == "code"
        codes.append(_text(cell.get("source", cell.get("input", "")), number) if is_code else None)
    return replace(from_cells(codes), text=text, document=document, spans=spans)


def from_cells(cells: Sequence[str | None]) -> Notebook:
    """The notebook of `cells`, in order: the text of each code cell, None
    for another cell (markdown, raw), which counts in the cells' numbers. A
    cell that is no Python by itself is blanked (see `Notebook.broken`)."""
    numbers, starts, all_lines = [], [], []
    next_line = 1
    for number, text in enumerate(cells, start=1):
        if text is None:
            continue
        lines = tuple(code_lines(text))
        numbers.append(number)
        starts.append(next_line)
        all_lines.append(lines)
        next_line += len(lines)
    source = "".join(line + "\n" for lines in all_lines for line in lines)
    broken = []
    if _syntax_error(source) is not None:
        for index, lines in enumerate(all_lines):
            error = _syntax_error("".join(line + "\n" for line in lines))
            if error is not None:
                message, line, column = error
                broken.append((index, message, starts[index] + line - 1, column))
                all_lines[index] = tuple("" for _ in lines)
        source = "".join(line + "\n" for lines in all_lines for line in lines)
    return Notebook(source, tuple(numbers), tuple(starts), tuple(all_lines), broken=tuple(broken))


def _syntax_error(source: str) -> tuple[str, int, int] | None:
    """Why CPython's parser refuses `source` (message, line, column), or None.
    Only asked of a notebook's cells one by one when their module is refused:
    the kernel compiles each cell alone, so one that is no Python fails alone."""
    try:
        python_tree(source)
    except SyntaxError as exc:
        return f"syntax error: {exc.msg}", exc.lineno or 1, max(exc.offset or 1, 1)
    except ValueError as exc:  # a NUL character
        return str(exc), 1, 1
    except (RecursionError, MemoryError):
        return "code is nested too deeply to parse", 1, 1
    return None


def _worksheet_cells(worksheets: list[object]) -> Iterator[object]:
    """nbformat 3's cells: those of each worksheet, in order."""
    for number, sheet in enumerate(worksheets, start=1):
        cells = sheet.get("cells") or [] if isinstance(sheet, dict) else None
        if not isinstance(cells, list):
            raise NotebookError(f"not a Jupyter notebook: worksheet {number} has no list of 'cells'")
        yield from cells


def _load(data: bytes) -> tuple[str | None, object, dict[int, tuple[int, int]] | None]:
    """The notebook's JSON text, its document, and the spans of the cells'
    `source` values (see `Notebook`), in one reading of the text; JSON that is
    not UTF-8, or not laid out as one `cells` list, is read by `json.loads`
    alone (no spans)."""
    try:
        text = data.decode("utf-8-sig")  # a byte order mark is no text (kept when written: see `encoding`)
    except UnicodeDecodeError:
        text = None
    if text is not None:
        try:
            document, spans = _read_with_spans(text)
            return text, document, spans
        except (ValueError, IndexError, RecursionError):
            pass  # json.loads says what is wrong, or reads what the spans cannot place
    try:
        return text, json.loads(data), None
    except json.JSONDecodeError as exc:
        raise NotebookError(f"notebook is not valid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise NotebookError(f"notebook cannot be decoded as JSON text: {exc}") from None
    except RecursionError:
        raise NotebookError("notebook is not readable JSON: it nests too deep") from None


def encoding(data: bytes) -> str:
    """The encoding the notebook stored as `data` is written back in: UTF-8,
    with the byte order mark it had (`Notebook.text` is read without it)."""
    return "utf-8-sig" if data.startswith(codecs.BOM_UTF8) else "utf-8"


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


def rewrite(notebook: Notebook, fixed: str) -> Notebook | None:
    """`notebook` with the code cells changed as `fixed` (the fixed text of
    `notebook.source`) has them, its `text` the JSON to write; None when that
    cannot be written exactly: a change that falls in a cell with IPython
    syntax (its lines are not the cell's), or runs across two cells, or a JSON
    layout this does not reproduce byte for byte. Only the `source` values of
    the changed cells differ from the text as stored: indentation, key order,
    outputs, metadata and the last line end are kept."""
    text, spans, document = notebook.text, notebook.spans, notebook.document
    if not notebook.python or text is None or spans is None or not isinstance(document, dict):
        return None
    changed = _changed_cells(notebook, fixed)
    if changed is None:
        return None
    cells = list(document["cells"])
    edits: dict[int, str] = {}  # by cell number: the JSON of its new source
    for index, lines in changed.items():
        number = notebook.cells[index]
        span = spans.get(number)
        if span is None:
            return None
        old = cells[number - 1]["source"]
        new_text = _new_cell_text(_text(old, number), notebook.lines[index], lines)
        written = _dump_like(text[span[0]:span[1]], old, new_text) if new_text is not None else None
        if written is None:
            return None
        new = json.loads(written)
        # what is written reads back as the new source, and as the cell's new lines
        if _text(new, number) != new_text or tuple(code_lines(new_text)) != tuple(lines):
            return None
        cells[number - 1] = {**cells[number - 1], "source": new}
        edits[number] = written
    pieces, new_spans, at, shift = [], {}, 0, 0
    for number, (start, end) in sorted(spans.items(), key=lambda item: item[1]):
        written = edits.get(number, text[start:end])
        pieces += [text[at:start], written]
        new_spans[number] = (start + shift, start + shift + len(written))
        shift += len(written) - (end - start)
        at = end
    pieces.append(text[at:])
    all_lines = [tuple(changed.get(index, lines)) for index, lines in enumerate(notebook.lines)]
    starts = tuple(itertools.accumulate((len(lines) for lines in all_lines[:-1]), initial=1))
    return replace(notebook, source=fixed, starts=starts, lines=tuple(all_lines), text="".join(pieces),
                   document={**document, "cells": cells}, spans=new_spans)


def _new_cell_text(text: str, old: tuple[str, ...], new: list[str]) -> str | None:
    """The text of a cell, `text`, whose module lines `old` become `new`. Where
    the text is its module's lines (see `_clean`), it is the new lines; in a
    cell with IPython syntax or other line ends, only lines changed one for
    one, none of them blanked (a `# noqa` added, a call changed in its line),
    each keeping its line end; else None."""
    if _clean(text, old):
        return "\n".join(new) + ("\n" if new and text.endswith("\n") else "")
    raw = LINE_BREAK.split(text)
    if len(new) != len(old) or len(raw) < len(old):
        return None
    for number, (was, now) in enumerate(zip(old, new)):
        if was != now:
            if raw[number] != was:
                return None  # IPython's line, blanked in the module
            raw[number] = now
    return "".join(line + end for line, end in zip(raw, [*LINE_BREAK.findall(text), ""]))


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
    fixed module changes; None when a change runs across two cells (other than
    lines changed one for one, each kept in its cell). A line
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
        if i1 < i2 and owner[i1] != owner[i2 - 1]:
            if i2 - i1 != j2 - j1:
                return None
            # lines changed in place on both sides of a cell's end (one fix at the
            # end of a cell, another at the start of the next): each stays in its cell
            for i, j in zip(range(i1, i2), range(j1, j2)):
                result[owner[i]].append(new[j])
            continue
        if i1 < i2:
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


def _read_with_spans(text: str) -> tuple[object, dict[int, tuple[int, int]] | None]:
    """The JSON document of `text` and, for an object with one `cells` list,
    where each cell's `source` value begins and ends in `text`, by cell number
    (from 1); spans are None for another layout (a key given twice,
    nbformat 3's worksheets). Raises ValueError where `json.loads` would."""
    spans: dict[int, tuple[int, int]] = {}
    layout_known = True
    cells_lists = 0

    def cell_member(number: int) -> Callable[[str, int], tuple[object, int]]:
        def read(key: str, at: int) -> tuple[object, int]:
            nonlocal layout_known
            value, end = _DECODER.raw_decode(text, at)
            if key == "source":
                layout_known = layout_known and number not in spans
                spans[number] = (at, end)
            return value, end
        return read

    def cell(number: int, at: int) -> tuple[object, int]:
        if text.startswith("{", at):
            return _object(text, at, cell_member(number))
        return _DECODER.raw_decode(text, at)

    def top_member(key: str, at: int) -> tuple[object, int]:
        nonlocal cells_lists
        if key == "cells" and text.startswith("[", at):
            cells_lists += 1
            spans.clear()
            return _array(text, at, cell)
        return _DECODER.raw_decode(text, at)

    at = _skip(text, 0)
    if not text.startswith("{", at):
        value, end = _DECODER.raw_decode(text, at)
        if _skip(text, end) != len(text):
            raise ValueError("extra data")
        return value, None
    document, end = _object(text, at, top_member)
    if _skip(text, end) != len(text):
        raise ValueError("extra data")
    known = layout_known and cells_lists == 1 and isinstance(document.get("cells"), list)
    return document, spans if known else None


def _object(text: str, at: int, read: Callable[[str, int], tuple[object, int]]) -> tuple[dict[str, object], int]:
    """The JSON object at `at`, each member's value read by `read(key, where
    it begins)`, which gives the value and where it ends; and where the object ends."""
    if not text.startswith("{", at):
        raise ValueError("no object")
    members: dict[str, object] = {}
    at = _skip(text, at + 1)
    if text.startswith("}", at):
        return members, at + 1
    while True:
        if not text.startswith('"', at):
            raise ValueError("no key")
        key, at = scanstring(text, at + 1)
        at = _skip(text, at)
        if not text.startswith(":", at):
            raise ValueError("no colon")
        members[key], at = read(key, _skip(text, at + 1))
        at = _skip(text, at)
        if text.startswith("}", at):
            return members, at + 1
        if not text.startswith(",", at):
            raise ValueError("no comma")
        at = _skip(text, at + 1)


def _array(text: str, at: int, read: Callable[[int, int], tuple[object, int]]) -> tuple[list[object], int]:
    """The JSON array at `at`, its N-th item (from 1) read by `read(N, where
    it begins)`; and where the array ends."""
    items: list[object] = []
    at = _skip(text, at + 1)
    if text.startswith("]", at):
        return items, at + 1
    while True:
        item, at = read(len(items) + 1, at)
        items.append(item)
        at = _skip(text, at)
        if text.startswith("]", at):
            return items, at + 1
        if not text.startswith(",", at):
            raise ValueError("no comma")
        at = _skip(text, at + 1)
