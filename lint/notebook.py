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

Needs neither LibCST nor anything else beyond the standard library: the
import screen (`trainlint.imports`) reads notebooks too."""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, replace
from typing import Sequence

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

    def relocate(self, finding: Finding) -> Finding:
        """`finding`, found in the module, in the notebook's terms: its cell, and
        its lines within that cell. A range that runs past its cell (a string
        left open runs on into the next cells) ends at the cell's end.
        Notebooks are not fixed: no finding is marked fixable."""
        start = self.locate(finding.line)
        if start is None:
            return replace(finding, fixable=False, fix=None)
        index, line = start
        lines = self.lines[index]
        line = min(max(line, 1), max(len(lines), 1))
        end_line = finding.end_line - self.starts[index] + 1
        end_column = finding.end_column
        if end_line > len(lines) or end_line < line:
            end_line = line
            end_column = max(finding.column, len(lines[line - 1]) + 1 if lines else 1)
        return replace(finding, line=line, end_line=end_line, end_column=end_column, cell=self.cells[index],
                       fixable=False, fix=None)


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
