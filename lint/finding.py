"""A finding as reported: where, which rule, what it says. Kept apart from
`trainlint.rule` so that reporting cached results needs no LibCST."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Literal

Severity = Literal["error", "warning", "info"]
FixSafety = Literal["safe", "unsafe"]

# the fix mode of `--add-noqa` (beside "safe" and "unsafe"): only the fixes that
# drop unused `# noqa` codes (TL001's), so that the baseline it writes lints clean
NOQA_FIXES = "noqa"
UNUSED_NOQA = "TL001"


@functools.total_ordering
@dataclass(frozen=True)
class Finding:
    """`line` and `column` are 1-based. In a notebook (`cell` set) they count
    within that cell, numbered from 1 as the notebook shows its cells; sorted
    by path, cell, line and column."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    name: str = field(compare=False)
    severity: Severity = field(compare=False)
    message: str = field(compare=False)
    fixable: bool = field(compare=False, default=False)
    fix: FixSafety | None = field(compare=False, default=None)
    cell: int | None = None  # the notebook cell the lines are in; None for a Python file

    def _key(self) -> tuple[str, int, int, int, int, int, str]:
        return (self.path, self.cell or 0, self.line, self.column, self.end_line, self.end_column, self.code)

    # the other comparisons follow from this and the fields' equality (`total_ordering`):
    # the dataclass's own order would compare `cell`, None for a Python file, last
    def __lt__(self, other: Finding) -> bool:
        return self._key() < other._key()

    def to_dict(self) -> dict[str, object]:
        """As the JSON report has it; `cell` only for a notebook's finding."""
        data: dict[str, object] = {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "message": self.message,
            "fixable": self.fixable,
            "fix": self.fix,
        }
        if self.cell is not None:
            data["cell"] = self.cell
        return data

    @property
    def place(self) -> str:
        """`line:column`, or `cell C:line:column` in a notebook."""
        return f"{self.line}:{self.column}" if self.cell is None else f"cell {self.cell}:{self.line}:{self.column}"


def placed_message(finding: Finding) -> str:
    """The finding's message, led by its place in words when it is a
    notebook's (`cell 3, line 5, column 9: ...`): for reports whose locations
    are lines of the file, which a cell's lines are not."""
    if finding.cell is None:
        return finding.message
    return f"cell {finding.cell}, line {finding.line}, column {finding.column}: {finding.message}"
