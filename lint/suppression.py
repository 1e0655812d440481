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


@dataclass(frozen=True)
class NoqaDirective:
    """One `# noqa` in a comment: its span in the comment text and its codes
    (empty for a bare `# noqa`, which covers every rule)."""

    start: int
    end: int
    codes: tuple[str, ...]


def noqa_directives(comment: str) -> list[NoqaDirective]:
    return [
        NoqaDirective(m.start(), m.end(), tuple(c.upper() for c in _CODE.findall(m.group("codes") or "")))
        for m in _LINE_NOQA.finditer(comment)
    ]


class NoqaUsage:
    """The line `# noqa` comments of a file, and which of their codes
    suppressed a finding, for the rule that reports unused ones. `ran` holds
    the codes of the rules that ran on the file: only those can be judged."""

    def __init__(self, lines: list[str], ran: frozenset[str] = frozenset()) -> None:
        self.lines = lines
        self.ran = ran
        self.used: set[tuple[int, str]] = set()  # (line, code) of codes that suppressed something
        self._comments: dict[int, str] | None = None  # line -> its comment, read when first needed

    def suppresses(self, line: int, end_line: int, code: str) -> bool:
        """Whether a `# noqa` on the finding's first or last line covers
        `code`; every covering directive counts as used."""
        covered = False
        for number in sorted({line, end_line}):
            if self._covers(number, code):
                self.used.add((number, code))
                covered = True
        return covered

    def _covers(self, number: int, code: str) -> bool:
        if not 1 <= number <= len(self.lines) or "#" not in self.lines[number - 1]:
            return False
        if not noqa_directives(self.lines[number - 1]):
            return False
        # `# noqa` inside a string (`label = "see # noqa"`) is no comment
        comment = self._comment_of(number)
        return any(not d.codes or code in d.codes for d in noqa_directives(comment))

    def _comment_of(self, number: int) -> str:
        """The comment of line `number`, or the whole line when the file does not tokenize."""
        if self._comments is None:
            self._comments = {}
            try:
                source = "\n".join(line.rstrip("\r\n") for line in self.lines) + "\n"
                for token in tokenize.generate_tokens(io.StringIO(source).readline):
                    if token.type == tokenize.COMMENT:
                        self._comments[token.start[0]] = token.string
            except (tokenize.TokenError, SyntaxError, IndentationError):
                self._comments = None
                return self.lines[number - 1]
        return self._comments.get(number, "")
