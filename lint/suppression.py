"""`# noqa` comments: per line, and `# trainlint: noqa` for a whole file."""

from __future__ import annotations

import bisect
import io
import re
import tokenize
from dataclasses import dataclass, field

from trainlint.source import LINE_BREAK

_LINE_NOQA = re.compile(r"#\s*noqa(?P<colon>\s*:)?", re.IGNORECASE)
_WORD = re.compile(r"[\s,]*([A-Za-z][A-Za-z0-9_-]*)")
# a code as linters write them: letters, then a digit (`TL101`, `E501`; mistyped `TL3O1`, `TL-301`)
_CODE_LIKE = re.compile(r"[A-Za-z]+-?[0-9][A-Za-z0-9]*")
_FILE_NOQA = re.compile(
    r"^[ \t]*#[ \t]*trainlint:[ \t]*noqa(?::[ \t]*(?P<codes>[A-Za-z][\w-]*(?:[ \t,]+[A-Za-z][\w-]*)*))?[ \t]*$",
    re.MULTILINE | re.IGNORECASE,
)


_MENTION = re.compile("trainlint", re.IGNORECASE)


@dataclass
class FileSuppression:
    """What `# trainlint: noqa` comments of a file switch off."""

    whole_file: bool = False
    codes: set[str] = field(default_factory=set)


def file_suppression(source: str) -> FileSuppression:
    result = FileSuppression()
    if _MENTION.search(source) is None:  # a quick no for most files; `# TRAINLINT: NOQA` counts too
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
            result.codes.update(code for code in map(_token_code, codes.replace(",", " ").split()) if code)
        else:
            result.whole_file = True
    return result


def file_directive_codes(comment: str) -> list[str] | None:
    """What a `# trainlint: noqa: CODES` comment names, each as its code (a rule's
    name as the rule's code), or as written when it names no rule; None when
    the comment is no such directive."""
    match = _FILE_NOQA.fullmatch(comment.strip())
    if match is None:
        return None
    return [_token_code(token) or token for token in (match.group("codes") or "").replace(",", " ").split()]


def _token_code(token: str) -> str | None:
    """`TL101` for `tl101` or `clip-before-unscale`; a code-like token upper-cased (a
    mistyped `TL3O1`, another tool's `E501`); None for a word (prose)."""
    if _CODE_LIKE.fullmatch(token):
        return token.upper()
    from trainlint.manifest import manifest  # only for a word: a run of codes needs none

    return next((rule.code for rule in manifest().rules if rule.name == token.lower()), None)


def comment_places(source: str) -> tuple[list[int], dict[int, tuple[int, str]]]:
    """The lines that can end with a comment (no string or backslash goes on past
    them), in order, and the comment of each line (its column and text). Raises
    `tokenize.TokenError` or `SyntaxError` for a file that does not tokenize.
    Lines are numbered as LibCST numbers them: tokenize alone would read a file
    of old-Mac line ends (a lone CR) as one line."""
    ends: list[int] = []
    comments: dict[int, tuple[int, str]] = {}
    for token in tokenize.generate_tokens(io.StringIO(LINE_BREAK.sub("\n", source)).readline):
        if token.type in (tokenize.NEWLINE, tokenize.NL):
            ends.append(token.start[0])
        elif token.type == tokenize.COMMENT:
            comments[token.start[0]] = (token.start[1], token.string)
    return ends, comments


def comment_line(ends: list[int], number: int) -> int | None:
    """Where a comment for line `number` goes: that line, or the first after it
    that can end with a comment (see `comment_places`); None past the last."""
    index = bisect.bisect_left(ends, number)
    return ends[index] if index < len(ends) else None


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
    (empty for a bare `# noqa`, which covers every rule). After the colon, codes
    and rules' names (each standing for its code) are read up to the first word
    that is neither: `# noqa: TL301 legacy` covers TL301; words alone (`# noqa:
    legacy code`) make a bare `# noqa`, as flake8 reads it. A mistyped code
    (`TL3O1`) is kept as written, and covers no rule."""

    start: int
    end: int
    codes: tuple[str, ...]

    def covers(self, code: str) -> bool:
        return code in self.codes if self.codes else True


def noqa_directives(comment: str) -> list[NoqaDirective]:
    found = []
    for match in _LINE_NOQA.finditer(comment):
        end, codes = match.end(), []
        if match.group("colon"):
            position = end
            while (word := _WORD.match(comment, position)) is not None:
                code = _token_code(word.group(1))
                if code is None:
                    break
                codes.append(code)
                position = end = word.end()
        found.append(NoqaDirective(match.start(), end, tuple(codes)))
    return found


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
        return comment_line(self._ends, number) or number

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
            try:
                self._ends, comments = comment_places("\n".join(line.rstrip("\r\n") for line in self.lines) + "\n")
            except (tokenize.TokenError, SyntaxError, IndentationError):
                return self.lines[number - 1]
            self._comments = {line: text for line, (_, text) in comments.items()}
        return self._comments.get(number, "")
