"""Reading a source file as text the way Python would: BOM, PEP 263 coding
line, and clear errors for what cannot be decoded."""

from __future__ import annotations

import codecs
import io
import re
import tokenize

# Python, LibCST and LSP end a line at \r\n, \r or \n only; str.splitlines
# also breaks at \f, \v, \x1c-\x1e, \x85, \u2028 and \u2029
LINE_BREAK = re.compile(r"\r\n|\r|\n")
_BYTE_LINE_BREAK = re.compile(rb"\r\n|\r|\n")
# PEP 263's encoding declaration, in a comment
_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def source_lines(source: str) -> list[str]:
    """The lines of a source text, numbered as LibCST positions number them."""
    return LINE_BREAK.split(source)


class SourceError(Exception):
    """A file that cannot be read as Python source; `line` is 1-based."""

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


def decode(data: bytes) -> tuple[str, str]:
    """Text of a Python source file (newlines kept as written) and the encoding
    to write it back with."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise SourceError("file is UTF-16 encoded (it has a UTF-16 byte order mark); Python source must be UTF-8 or declare an ASCII-compatible encoding")
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise SourceError("source contains a NUL byte", line)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        # tokenize reads a declaration only on a line that is valid UTF-8; Python reads
        # it on any line, and says a non-UTF-8 byte is undeclared (as below) if there is none
        if not exc.msg.startswith("invalid or missing encoding declaration"):
            raise SourceError(f"invalid encoding declaration: {exc.msg}", exc.lineno or 1) from None
        encoding = _declared_encoding(data) or "utf-8"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        # reported at line 1, as a file that cannot be read at all; the message says where the byte is
        raise SourceError(_undecodable(data, exc.start, encoding)) from None
    except LookupError:
        raise SourceError(f"unknown encoding {encoding!r}") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, encoding


def _declared_encoding(data: bytes) -> str | None:
    """The encoding a PEP 263 comment declares, on line 1 or on line 2 below a
    comment or blank line; a UTF-8 byte order mark declares UTF-8."""
    if data.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    for line in _BYTE_LINE_BREAK.split(data, 2)[:2]:
        match = _CODING.match(line)
        if match is not None:
            return match.group(1).decode("ascii")
        if line.strip() and not line.lstrip().startswith(b"#"):
            return None
    return None


def _undecodable(data: bytes, start: int, encoding: str) -> str:
    """What Python says of the byte at `start`, with its line and column."""
    lines = _BYTE_LINE_BREAK.split(data[:start])
    line, column = len(lines), len(lines[-1].decode(encoding, errors="replace")) + 1
    where = f"byte 0x{data[start]:02x} on line {line}, column {column}"
    if _declared_encoding(data) is None:
        return f"non-UTF-8 {where}, and no encoding declared (see PEP 263)"
    return f"cannot decode as {encoding}: {where} is invalid"


def encoding_to_write(data: bytes, encoding: str) -> str:
    """The encoding to write fixed text of `data` with: a UTF-8 byte order
    mark the file had is kept."""
    return "utf-8-sig" if data.startswith(codecs.BOM_UTF8) else encoding
