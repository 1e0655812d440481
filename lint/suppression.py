"""`# noqa` comments: per line, and `# trainlint: noqa` for a whole file."""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field

_LINE_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_FILE_NOQA = re.compile(
    r"^[ \t]*#[ \t]*trainlint:[ \t]*noqa(?::[ \t]*(?P<codes>[A-Z]+[0-9]+(?:[ \t,]+[A-Z]+[0-9]+)*))?[ \t]*$",
    re.MULTILINE | re.IGNORECASE,
)
_CODE = re.compile(r"[A-Z]+[0-9]+", re.IGNORECASE)


@dataclass
class FileSuppression:
    """What `# trainlint: noqa` comments of a file switch off."""

    whole_file: bool = False
    codes: set[str] = field(default_factory=set)


def file_suppression(source: str) -> FileSuppression:
    result = FileSuppression()
    if "trainlint" not in source:
        return result
    matches = list(_FILE_NOQA.finditer(source))
    if not matches:
        return result
    comment_lines = _comment_only_lines(source)
    for match in matches:
        line = source.count("\n", 0, match.start()) + 1
        if comment_lines is not None and line not in comment_lines:
            continue  # the text is inside a string, not a comment
        codes = match.group("codes")
        if codes:
            result.codes.update(c.upper() for c in _CODE.findall(codes))
        else:
            result.whole_file = True
    return result


def _comment_only_lines(source: str) -> set[int] | None:
    """Lines holding nothing but a comment; None when the file does not tokenize."""
    lines: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT and not token.line[: token.start[1]].strip():
                lines.add(token.start[0])
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    return lines


def suppressed(lines: list[str], line: int, end_line: int, code: str) -> bool:
    """Whether a `# noqa` on the finding's first or last line covers `code`."""
    for number in {line, end_line}:
        if not 1 <= number <= len(lines):
            continue
        text = lines[number - 1]
        if "#" not in text:
            continue
        for match in _LINE_NOQA.finditer(text):
            codes = match.group("codes")
            if codes is None or code in {c.upper() for c in _CODE.findall(codes)}:
                return True
    return False
