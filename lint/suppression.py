"""`# noqa` comments: per line, and `# trainlint: noqa` for a whole file."""

from __future__ import annotations

import bisect
import io
import re
import tokenize
from dataclasses import dataclass, field

# a code (`TL101`, another tool's `E501`) or a rule's name (`clip-before-unscale`)
_TOKEN = r"(?:[A-Z]+[0-9]+|[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)\b"
_LINE_NOQA = re.compile(rf"#\s*noqa(?:\s*:\s*(?P<codes>{_TOKEN}(?:[\s,]+{_TOKEN})*))?", re.IGNORECASE)
_TOKENS = re.compile(_TOKEN, re.IGNORECASE)
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


def file_directive_codes(comment: str) -> list[str] | None:
    """The codes of a `# trainlint: noqa: CODES` comment, as written; None when
    the comment is no such directive."""
    match = _FILE_NOQA.fullmatch(comment.strip())
    if match is None:
        return None
    return _CODE.findall(match.group("codes") or "")


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
    (empty for a bare `# noqa`, which covers every rule, and for one whose colon
    is followed by words rather than codes, `# noqa: legacy code`, read as flake8
    reads it). A rule's name counts as its code; a name of no rule, or a
    mistyped code (`TL-101`), is kept as written and covers nothing: never
    every rule."""

    start: int
    end: int
    codes: tuple[str, ...]

    def covers(self, code: str) -> bool:
        return code in self.codes if self.codes else True


def noqa_directives(comment: str) -> list[NoqaDirective]:
    return [
        NoqaDirective(m.start(), m.end(), tuple(_code_of(token) for token in _TOKENS.findall(m.group("codes") or "")))
        for m in _LINE_NOQA.finditer(comment)
    ]


def _code_of(token: str) -> str:
    """`TL101` for `tl101` or `clip-before-unscale`; another token as written."""
    if _CODE.fullmatch(token):
        return token.upper()
    from trainlint.manifest import manifest  # only for a name: a cached run of codes needs none

    return next((rule.code for rule in manifest().rules if rule.name == token.lower()), token)


class NoqaUsage:
    """The line `# noqa` comments of a file, and which of their codes
    suppressed a finding, for the rule that reports unused ones. `ran` holds
    the codes of the rules that ran on the file: only those can be judged."""

    def __init__(self, lines: list[str], ran: frozenset[str] = frozenset()) -> None:
        self.lines = lines
        self.ran = ran
        self.used: set[tuple[int, str]] = set()  # (line, code) of codes that suppressed something
        self._comments: dict[int, str] | None = None  # line -> its comment, read when first needed
        self._ends: list[int] = []  # lines that can end with a comment (not inside a string, no backslash)
        self._any_noqa: bool | None = None  # whether any line of the file holds `noqa`, read when first needed

    def suppresses(self, line: int, end_line: int, code: str) -> bool:
        """Whether a `# noqa` on the finding's first or last line covers
        `code`; every covering directive counts as used. A line that cannot
        take a comment (it ends inside a string, or with a backslash) is
        covered by the `# noqa` of the line its statement goes on to end."""
        covered = False
        numbers = {line, end_line}
        if self._may_cover_elsewhere(numbers):
            numbers |= {self._comment_line(number) for number in (line, end_line)}
        for number in sorted(numbers):
            if self._covers(number, code):
                self.used.add((number, code))
                covered = True
        return covered

    def _may_cover_elsewhere(self, numbers: set[int]) -> bool:
        """A finding's own lines hold no `# noqa`, and some other line does."""
        if self._any_noqa is None:
            self._any_noqa = any("noqa" in line.lower() for line in self.lines)
        return self._any_noqa and not any(1 <= n <= len(self.lines) and "noqa" in self.lines[n - 1].lower()
                                          for n in numbers)

    def _comment_line(self, number: int) -> int:
        """`number`, or the first line after it that can end with a comment."""
        self._comment_of(number)  # tokenizes the file once
        index = bisect.bisect_left(self._ends, number)
        return self._ends[index] if index < len(self._ends) else number

    def _covers(self, number: int, code: str) -> bool:
        if not 1 <= number <= len(self.lines) or "#" not in self.lines[number - 1]:
            return False
        if not noqa_directives(self.lines[number - 1]):
            return False
        # `# noqa` inside a string (`label = "see # noqa"`) is no comment
        comment = self._comment_of(number)
        return any(d.covers(code) for d in noqa_directives(comment))

    def _comment_of(self, number: int) -> str:
        """The comment of line `number`, or the whole line when the file does not tokenize."""
        if self._comments is None:
            self._comments = {}
            try:
                source = "\n".join(line.rstrip("\r\n") for line in self.lines) + "\n"
                for token in tokenize.generate_tokens(io.StringIO(source).readline):
                    if token.type == tokenize.COMMENT:
                        self._comments[token.start[0]] = token.string
                    elif token.type in (tokenize.NEWLINE, tokenize.NL):
                        self._ends.append(token.start[0])
            except (tokenize.TokenError, SyntaxError, IndentationError):
                self._comments = None
                self._ends = []
                return self.lines[number - 1]
        return self._comments.get(number, "")
