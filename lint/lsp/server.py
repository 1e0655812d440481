"""`trainlint server`: diagnostics for each open document, refreshed on open,
change and save, and its fixes as code actions: one quick fix per finding,
and "fix all" as a source action (`source.fixAll.trainlint`). A notebook's
code cell sent as a document of its own is linted as a cell (see
`trainlint.lsp.documents`); a notebook the editor syncs whole
(`notebookDocument/didOpen`, `didChange`) has its code cells linted
together, as `trainlint check` reads the notebook.

Settings, as `initializationOptions`: `{"unsafeFixes": true}` lets "fix
all" apply unsafe fixes too. Quick fixes are offered for both kinds; unsafe
ones say so in their title and are never marked preferred."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from urllib.parse import unquote

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from trainlint import __version__
from trainlint.config import ConfigError
from trainlint.finding import Finding
from trainlint.lsp.documents import fix_finding, is_cell, lint_document, lint_notebook_cells
from trainlint.lsp.protocol import TextPositions, diagnostic, overlaps, replacement, workspace_edit

FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.trainlint"
QUICK_FIX = types.CodeActionKind.QuickFix.value
LINTED_KEPT_S = 2.0  # how long the findings of a text are taken as current when published again
WATCHED = ("**/*.py", "**/pyproject.toml", "**/trainlint.toml", "**/.gitignore")  # what a lint reads from disk


class TrainlintServer(LanguageServer):
    def __init__(self) -> None:
        # full sync: every change re-lints the whole text anyway
        super().__init__("trainlint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Full,
                         notebook_document_sync=NOTEBOOKS)
        self.unsafe_fixes = False
        self.linted: dict[str, tuple[str, float, list[Finding]]] = {}  # uri: (text, when, its findings)
        self.reported_errors: set[str] = set()
        self.shut_down = False  # the client asked to shut down before `exit`
        self.notebook_cells: dict[str, set[str]] = {}  # notebook uri: the cells given diagnostics

    def findings(self, document: TextDocument, fresh: bool = False) -> list[Finding]:
        """The findings of the document's current text, linted once per text: the
        code actions offer what the diagnostics show. `fresh` (a publish): a text
        linted more than a moment ago is linted again, since the configuration or
        a helper module on disk may have changed."""
        text = document.source
        cached = self.linted.get(document.uri)
        if cached is not None and cached[0] == text and (not fresh or time.monotonic() - cached[1] < LINTED_KEPT_S):
            return cached[2]
        try:
            outcome = lint_document(Path(document.path), text, cell=is_cell(document.uri, document.path))
        except ConfigError as exc:
            self.report_error(str(exc))
            findings = []
        else:
            findings = outcome.findings
            for crash in outcome.crashes:
                self.report_error(crash.describe(document.path))
        self.linted[document.uri] = (text, time.monotonic(), findings)
        return findings

    def report_error(self, message: str) -> None:
        """Shown once, not on every keystroke: a configuration to correct
        (the server lints nothing until it is) or a rule that crashed."""
        if message not in self.reported_errors:
            self.reported_errors.add(message)
            self.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=f"trainlint: {message}"))

    def publish(self, uri: str) -> None:
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        if notebook is not None:  # a cell of a notebook the editor syncs whole: read with its other cells
            self.publish_notebook(notebook.uri)
            return
        document = self.workspace.get_text_document(uri)
        positions = TextPositions(document.source, document.position_codec)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=document.uri,  # as the editor spelt it (the workspace keeps the uri unquoted)
                version=document.version,
                diagnostics=[diagnostic(f, positions) for f in self.findings(document, fresh=True)],
            )
        )


    def publish_notebook(self, uri: str) -> None:
        """Diagnostics for each cell of the notebook `uri`, its code cells linted
        together (see `lint_notebook_cells`); a cell without findings, or one
        no longer in the notebook, gets none."""
        notebook = self.workspace.get_notebook_document(notebook_uri=uri)
        if notebook is None:
            return
        cells = [self.workspace.get_text_document(cell.document) for cell in notebook.cells]
        texts = [document.source if cell.kind == types.NotebookCellKind.Code and document.language_id == "python"
                 else None for cell, document in zip(notebook.cells, cells)]
        try:
            outcome = lint_notebook_cells(Path(to_fs_path(uri) or uri), texts)
        except ConfigError as exc:
            self.report_error(str(exc))
            findings = []
        else:
            findings = outcome.findings
            for crash in outcome.crashes:
                self.report_error(crash.describe(notebook.uri))
        for gone in self.notebook_cells.get(uri, set()) - {cell.document for cell in notebook.cells}:
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=gone, diagnostics=[]))
        self.notebook_cells[uri] = {cell.document for cell in notebook.cells}
        for number, (cell, document) in enumerate(zip(notebook.cells, cells), start=1):
            positions = TextPositions(document.source, document.position_codec)
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=cell.document, version=document.version,
                diagnostics=[diagnostic(f, positions) for f in findings if f.cell == number]))


# notebooks synced whole (LSP 3.17), where the client can: their Python cells
NOTEBOOKS = types.NotebookDocumentSyncOptions(notebook_selector=[types.NotebookDocumentFilterWithCells(
    notebook="jupyter-notebook", cells=[types.NotebookCellLanguage(language="python")])], save=True)
server = TrainlintServer()


@server.feature(types.INITIALIZE)
def initialize(ls: TrainlintServer, params: types.InitializeParams) -> None:
    options = params.initialization_options
    ls.unsafe_fixes = isinstance(options, dict) and options.get("unsafeFixes") is True


@server.feature(types.INITIALIZED)
def initialized(ls: TrainlintServer, params: types.InitializedParams) -> None:
    """Ask the editor to report changes on disk of what the lint reads (a
    configuration, the project's modules), when it can watch files for a server."""
    workspace = ls.client_capabilities.workspace
    watching = workspace.did_change_watched_files if workspace is not None else None
    if watching is None or not watching.dynamic_registration:
        return
    watchers = [types.FileSystemWatcher(glob_pattern=glob) for glob in WATCHED]
    ls.client_register_capability(types.RegistrationParams(registrations=[types.Registration(
        id="trainlint-watched-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers))]))


@server.feature(types.SHUTDOWN)
def shutdown(ls: TrainlintServer, params: None) -> None:
    ls.shut_down = True


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: TrainlintServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.publish(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: TrainlintServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.publish(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: TrainlintServer, params: types.DidSaveTextDocumentParams) -> None:
    # the text is unchanged, but the configuration next to it may not be
    ls.linted.pop(params.text_document.uri, None)
    ls.publish(params.text_document.uri)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
def did_open_notebook(ls: TrainlintServer, params: types.DidOpenNotebookDocumentParams) -> None:
    ls.publish_notebook(params.notebook_document.uri)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
def did_change_notebook(ls: TrainlintServer, params: types.DidChangeNotebookDocumentParams) -> None:
    ls.publish_notebook(params.notebook_document.uri)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
def did_save_notebook(ls: TrainlintServer, params: types.DidSaveNotebookDocumentParams) -> None:
    ls.publish_notebook(params.notebook_document.uri)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
def did_close_notebook(ls: TrainlintServer, params: types.DidCloseNotebookDocumentParams) -> None:
    for cell in ls.notebook_cells.pop(params.notebook_document.uri, set()):
        ls.linted.pop(cell, None)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=cell, diagnostics=[]))


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: TrainlintServer, params: types.DidChangeWatchedFilesParams) -> None:
    """A file changed on disk (a configuration, a helper module, a branch switch):
    every open document is linted again."""
    ls.linted.clear()
    for uri in list(ls.workspace.text_documents):
        if ls.workspace.get_notebook_document(cell_uri=uri) is None:
            ls.publish(uri)
    for uri in list(ls.workspace.notebook_documents):
        ls.publish_notebook(uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: TrainlintServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.linted.pop(params.text_document.uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]),
)
def code_action(ls: TrainlintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    if unquote(params.text_document.uri) not in ls.workspace.text_documents:  # kept by the uri unquoted
        return []  # never opened (or closed since): no findings shown, no fixes
    document = ls.workspace.get_text_document(params.text_document.uri)
    wanted = [getattr(kind, "value", kind) for kind in params.context.only or [QUICK_FIX, FIX_ALL]]
    actions: list[types.CodeAction] = []
    if any(_within(QUICK_FIX, kind) for kind in wanted):
        actions.extend(_quick_fixes(ls, document, params.range))
    if any(_within(FIX_ALL, kind) for kind in wanted):
        actions.extend(_fix_all(ls, document))
    return actions


def _within(kind: str, requested: str) -> bool:
    """LSP kinds are hierarchical: asking for `source` includes `source.fixAll.x`."""
    return kind == requested or kind.startswith(f"{requested}.")


def _quick_fixes(ls: TrainlintServer, document: TextDocument, where: types.Range) -> list[types.CodeAction]:
    text = document.source
    positions = TextPositions(text, document.position_codec)
    actions = []
    for finding in ls.findings(document):
        shown = diagnostic(finding, positions)
        if finding.fix is None or not overlaps(shown.range, where):
            continue
        fixed = fix_finding(Path(document.path), text, finding, cell=is_cell(document.uri, document.path))
        if fixed is None:
            continue
        unsafe = " (unsafe fix)" if finding.fix == "unsafe" else ""
        actions.append(
            types.CodeAction(
                title=f"Fix {finding.code}: {finding.name}{unsafe}",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[shown],
                is_preferred=finding.fix == "safe",
                edit=workspace_edit(document.uri, document.version, [replacement(positions, fixed)]),
            )
        )
    return actions


def _fix_all(ls: TrainlintServer, document: TextDocument) -> list[types.CodeAction]:
    mode = "unsafe" if ls.unsafe_fixes else "safe"
    # editors ask on every cursor move: fix only when a finding says it can
    if not any(f.fix == "safe" or f.fix == mode for f in ls.findings(document)):
        return []
    try:
        cell = is_cell(document.uri, document.path)
        fixed = lint_document(Path(document.path), document.source, fix=mode, cell=cell).fixed_source
    except ConfigError as exc:
        ls.report_error(str(exc))
        return []
    if fixed is None:
        return []
    positions = TextPositions(document.source, document.position_codec)
    title = "trainlint: fix all" + (" (including unsafe fixes)" if ls.unsafe_fixes else " safe fixes")
    return [
        types.CodeAction(
            title=title,
            kind=FIX_ALL,
            edit=workspace_edit(document.uri, document.version, [replacement(positions, fixed)]),
        )
    ]


def serve() -> None:
    """Speak LSP on stdin/stdout until the client exits; the exit status is 0
    after a `shutdown` request and 1 without one (an `exit` alone, a client that
    went away), as the specification asks: pygls ends without one."""
    protocol_out = sys.stdout.buffer
    # a stray print anywhere would corrupt the protocol stream: send it to stderr
    sys.stdout = sys.stderr
    server.start_io(sys.stdin.buffer, protocol_out)
    if not server.shut_down:
        sys.exit(1)
