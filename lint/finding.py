"""A finding as reported: where, which rule, what it says. Kept apart from
`trainlint.rule` so that reporting cached results needs no LibCST."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Severity = Literal["error", "warning", "info"]
FixSafety = Literal["safe", "unsafe"]

# the fix mode of `--add-noqa` (beside "safe" and "unsafe"): only the fixes that
# drop unused `# noqa` codes (TL001's), so that the baseline it writes lints clean
NOQA_FIXES = "noqa"
UNUSED_NOQA = "TL001"


@dataclass(frozen=True, order=True)
class Finding:
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

    def to_dict(self) -> dict[str, object]:
        return {
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
