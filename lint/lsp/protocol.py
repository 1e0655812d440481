"""From trainlint's findings and fixed texts to LSP diagnostics and edits,
with positions in the code units the client negotiated (UTF-16 by default)."""

from __future__ import annotations

import os
from typing import Sequence

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from trainlint import urls
from trainlint.finding import Finding
from trainlint.source import source_lines

SOURCE = "trainlint"
_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
}


class TextPositions:
    """Positions in one text, converted to the client's code units."""

    def __init__(self, text: str, codec: PositionCodec) -> None:
        self.text = text
        self.lines = source_lines(text)
        self.codec = codec

    def at(self, line: int, column: int) -> types.Position:
        """The position of a 1-based line and code point column."""
        index = min(max(line - 1, 0), len(self.lines) - 1)
        before = self.lines[index][: max(column - 1, 0)]
        return types.Position(line=index, character=self.codec.client_num_units(before))

    def at_offset(self, offset: int) -> types.Position:
        before = source_lines(self.text[:offset])
        return types.Position(line=len(before) - 1, character=self.codec.client_num_units(before[-1]))


def diagnostic(finding: Finding, positions: TextPositions) -> types.Diagnostic:
    return types.Diagnostic(
        range=types.Range(
            start=positions.at(finding.line, finding.column),
            end=positions.at(finding.end_line, finding.end_column),
        ),
        message=finding.message,
        severity=_SEVERITY[finding.severity],
        code=finding.code,
        code_description=_docs_link(finding.code),
        source=SOURCE,
    )


def _docs_link(code: str) -> types.CodeDescription | None:
    """The rule's page on the web, when the project has an address."""
    url = urls.rule_docs_url(code)
    return types.CodeDescription(href=url) if url is not None else None


def overlaps(a: types.Range, b: types.Range) -> bool:
    return _key(a.start) <= _key(b.end) and _key(b.start) <= _key(a.end)


def _key(position: types.Position) -> tuple[int, int]:
    return position.line, position.character


def replacement(positions: TextPositions, new: str) -> types.TextEdit:
    """One edit turning the text into `new` that spans only what changed, so
    that the editor keeps the cursor, folds and marks elsewhere."""
    old = positions.text
    start = len(os.path.commonprefix([old, new]))
    limit = min(len(old), len(new)) - start
    common_tail = len(os.path.commonprefix([old[::-1], new[::-1]]))
    tail = min(common_tail, limit)
    if _splits_line_break(old, start):
        start -= 1
    if _splits_line_break(old, len(old) - tail):
        tail -= 1
    return types.TextEdit(
        range=types.Range(start=positions.at_offset(start), end=positions.at_offset(len(old) - tail)),
        new_text=new[start : len(new) - tail],
    )


def _splits_line_break(text: str, offset: int) -> bool:
    return 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n"


def workspace_edit(uri: str, version: int | None, edits: Sequence[types.TextEdit]) -> types.WorkspaceEdit:
    """Edits of one document, tied to its version when the client told it."""
    document = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
    return types.WorkspaceEdit(
        document_changes=[types.TextDocumentEdit(text_document=document, edits=list(edits))]
    )
