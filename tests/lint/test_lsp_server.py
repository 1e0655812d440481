"""`trainlint server` driven the way an editor drives it: a real LSP client
(pygls') launches `python -m trainlint server` as a subprocess and talks JSON-RPC
over its stdin/stdout: open -> diagnostics -> code action -> applied edit."""

from __future__ import annotations

import asyncio
import os
import re
import sys
import textwrap
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

import pytest
from click.testing import CliRunner
from hypothesis import example, given
from hypothesis import strategies as st
from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.workspace.position_codec import PositionCodec
from cli_runner import child_env

from trainlint.lsp.protocol import TextPositions, replacement

TIMEOUT = 20  # seconds; generous for a loaded machine

PYPROJECT = """\
[tool.trainlint]
exclude = ["generated"]
per-file-ignores = {"legacy_*.py" = ["TL102"]}
"""

TRAIN = """\
import torch

scaler = torch.cuda.amp.GradScaler()
for x, y in loader:
    optimizer.zero_grad()
    with torch.cuda.amp.autocast():  # noqa: TL102
        loss = model(x).sum()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    torch.cuda.empty_cache()
"""


class Client(LanguageClient):
    """pygls' client, noting the exit status of the server it started."""

    exit_status: int | None = None

    async def server_exit(self, server: asyncio.subprocess.Process) -> None:
        self.exit_status = server.returncode


class Editor:
    """What an editor keeps of a session: open texts and the latest
    diagnostics and messages the server sent."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.texts: dict[str, tuple[int, str]] = {}
        self.published: asyncio.Queue[types.PublishDiagnosticsParams] = asyncio.Queue()
        self.messages: list[types.ShowMessageParams] = []

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _diagnostics(params: types.PublishDiagnosticsParams) -> None:
            self.published.put_nowait(params)

        @client.feature(types.WINDOW_SHOW_MESSAGE)
        def _message(params: types.ShowMessageParams) -> None:
            self.messages.append(params)

    async def diagnostics(self, uri: str) -> list[types.Diagnostic]:
        """The next diagnostics published for `uri` (for its current version)."""
        while True:
            params = await asyncio.wait_for(self.published.get(), TIMEOUT)
            if params.uri == uri and params.version in (None, self.texts[uri][0]):
                return list(params.diagnostics)

    async def open(self, path: Path | str, text: str) -> list[types.Diagnostic]:
        """Open the file at `path`, or the document whose uri is `path` (a notebook's cell)."""
        uri = path.as_uri() if isinstance(path, Path) else path
        self.texts[uri] = (1, text)
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
            )
        )
        return await self.diagnostics(uri)

    async def change(self, uri: str, text: str) -> list[types.Diagnostic]:
        version = self.texts[uri][0] + 1
        self.texts[uri] = (version, text)
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        return await self.diagnostics(uri)

    async def save(self, uri: str) -> list[types.Diagnostic]:
        self.client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        return await self.diagnostics(uri)

    async def actions(
        self, uri: str, where: types.Range, only: list[str] | None = None, diagnostics: list[types.Diagnostic] = ()
    ) -> list[types.CodeAction]:
        result = await asyncio.wait_for(
            self.client.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    range=where,
                    context=types.CodeActionContext(diagnostics=list(diagnostics), only=only),
                )
            ),
            TIMEOUT,
        )
        return [action for action in result or [] if isinstance(action, types.CodeAction)]

    async def apply(self, action: types.CodeAction) -> list[types.Diagnostic]:
        """Apply the action's edit as an editor does, then tell the server."""
        assert action.edit is not None and action.edit.document_changes
        (change,) = action.edit.document_changes
        assert isinstance(change, types.TextDocumentEdit)
        uri = change.text_document.uri
        version, text = self.texts[uri]
        assert change.text_document.version == version, "the edit is for another version of the text"
        return await self.change(uri, apply_edits(text, change.edits))


def apply_edits(text: str, edits: list[Any]) -> str:
    """LSP TextEdits with UTF-16 positions, applied to `text`."""
    starts = [0] + [match.end() for match in re.finditer(r"\r\n|\r|\n", text)]

    def offset(position: types.Position) -> int:
        start = starts[position.line]
        units = 0
        index = start
        while units < position.character:
            units += 2 if ord(text[index]) > 0xFFFF else 1
            index += 1
        return index

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


@asynccontextmanager
async def editor(workspace: Path, options: dict[str, object] | None = None,
                 shutdown: bool = True, capabilities: types.ClientCapabilities | None = None) -> AsyncIterator[Editor]:
    """A session with a server in `workspace`, ended by `shutdown` then `exit` (or `exit` alone)."""
    client = Client("test-editor", "1")
    session = Editor(client)
    env = child_env()
    await client.start_io(sys.executable, "-m", "trainlint", "server", cwd=str(workspace), env=env)
    try:
        result = await asyncio.wait_for(
            client.initialize_async(
                types.InitializeParams(
                    capabilities=capabilities or types.ClientCapabilities(),
                    root_uri=workspace.as_uri(),
                    initialization_options=options,
                )
            ),
            TIMEOUT,
        )
        assert result.server_info is not None and result.server_info.name == "trainlint"
        client.initialized(types.InitializedParams())
        yield session
        if shutdown:
            await asyncio.wait_for(client.shutdown_async(None), TIMEOUT)
    finally:
        client.exit(None)  # the server exits on this, after a shutdown or not
        await asyncio.wait_for(client.stop(), TIMEOUT)


def run(scenario: Any) -> None:
    asyncio.run(asyncio.wait_for(scenario, 4 * TIMEOUT))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    return tmp_path


def _codes(diagnostics: list[types.Diagnostic]) -> list[tuple[int, str | int | None]]:
    return sorted((d.range.start.line + 1, d.code) for d in diagnostics)


def _only(diagnostics: list[types.Diagnostic], code: str) -> types.Diagnostic:
    (found,) = [d for d in diagnostics if d.code == code]
    return found


@pytest.mark.parametrize("shutdown", [True, False])
def test_a_document_never_opened_has_no_actions_and_exit_says_whether_shutdown_came_first(
        project: Path, shutdown: bool) -> None:
    """A code action asked for a document the editor never opened (or closed) is an
    empty answer, not an internal error; the server exits 0 after a shutdown
    request and 1 on `exit` alone, as the LSP specification says."""
    async def scenario() -> Editor:
        async with editor(project, shutdown=shutdown) as session:
            start = types.Position(line=0, character=0)
            for only in (None, ["source.fixAll.trainlint"]):
                actions = await session.actions((project / "nope.py").as_uri(), types.Range(start=start, end=start), only)
                assert actions == []
        return session

    session = asyncio.run(asyncio.wait_for(scenario(), 4 * TIMEOUT))
    assert session.client.exit_status == (0 if shutdown else 1)


def test_open_publishes_diagnostics_honouring_noqa_exclude_and_per_file_ignores(project: Path) -> None:
    async def scenario() -> None:
        async with editor(project) as session:
            diagnostics = await session.open(project / "train.py", TRAIN)
            # line 6 carries a noqa for TL102
            assert _codes(diagnostics) == [(3, "TL102"), (11, "TL201")]
            deprecated = _only(diagnostics, "TL102")
            assert deprecated.source == "trainlint"
            assert deprecated.code_description is None, "no link while the project publishes no address"
            assert deprecated.severity == types.DiagnosticSeverity.Warning
            assert (deprecated.range.start.character, deprecated.range.end.character) == (9, 36)
            # the configuration's per-file-ignores turns TL102 off for legacy_*.py
            legacy = await session.open(project / "legacy_train.py", TRAIN)
            assert _codes(legacy) == [(11, "TL201")]
            # and excludes what is under generated/
            assert await session.open(project / "generated" / "train.py", TRAIN) == []

    run(scenario())


def test_what_imported_modules_do_counts_as_in_trainlint_check(tmp_path: Path) -> None:
    """`helpers.clip(model)` clips: the buffer that calls it before `unscale_` gets the
    TL101 that `trainlint check train.py` reports, and loses it when the helper on
    disk stops clipping."""
    helper = "import torch\n\ndef clip(model):\n    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
    (tmp_path / "helpers.py").write_text(helper)
    text = ("import torch\nfrom helpers import clip\n\ndef train(model, loader, opt):\n"
            "    scaler = torch.amp.GradScaler('cuda')\n    for x in loader:\n        opt.zero_grad()\n"
            "        scaler.scale(model(x).sum()).backward()\n        clip(model)\n"
            "        scaler.step(opt)\n        scaler.update()\n")

    async def scenario() -> None:
        async with editor(tmp_path) as session:
            assert _codes(await session.open(tmp_path / "train.py", text)) == [(9, "TL101")]
            (tmp_path / "helpers.py").write_text("def clip(model):\n    print(model)\n")
            uri = (tmp_path / "train.py").as_uri()
            assert _codes(await session.change(uri, text + "\n")) == []

    run(scenario())


def test_quick_fix_is_applied_and_the_finding_goes_away(project: Path) -> None:
    async def scenario() -> None:
        async with editor(project) as session:
            uri = (project / "train.py").as_uri()
            diagnostics = await session.open(project / "train.py", TRAIN)
            deprecated = _only(diagnostics, "TL102")
            # the cursor on the flagged call, as when an editor asks for quick fixes
            cursor = types.Range(start=deprecated.range.start, end=deprecated.range.start)
            actions = await session.actions(uri, cursor, diagnostics=[deprecated])
            quick = [a for a in actions if a.kind == types.CodeActionKind.QuickFix]
            assert [a.title for a in quick] == ["Fix TL102: deprecated-amp-api"]
            assert quick[0].is_preferred and list(quick[0].diagnostics or []) == [deprecated]
            after = await session.apply(quick[0])
            assert _codes(after) == [(11, "TL201")]
            text = session.texts[uri][1]
            # the rest of the text, the noqa'd line included, is untouched
            assert text == TRAIN.replace("torch.cuda.amp.GradScaler()", 'torch.amp.GradScaler("cuda")')

    run(scenario())


def test_a_notebook_cell_sent_as_a_document_reads_ipython_syntax_as_the_notebook_does(project: Path) -> None:
    """VS Code sends each code cell as a document of its own: magics and shell lines
    are no syntax error there (TL000 before), the finding is at its line of the cell,
    and it is fixed only in a cell without IPython syntax, as `--fix` fixes notebooks."""
    loop = ("for x in loader:\n    opt.zero_grad()\n    scaler.scale(model(x)).backward()\n"
            "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n    scaler.step(opt)\n    scaler.update()")
    setup = "import torch\nscaler = torch.amp.GradScaler('cuda')\n"
    magics = "%matplotlib inline\n!pip install torch\n"
    cell_uri = "vscode-notebook-cell:" + (project / "nb.ipynb").as_uri()[len("file:"):] + "#W2sZmlsZQ%3D%3D"

    async def scenario() -> None:
        async with editor(project) as session:
            with_magics = await session.open(cell_uri, magics + setup + loop)
            assert _codes(with_magics) == [(8, "TL101")]
            whole = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=9, character=0))
            assert await session.actions(cell_uri, whole) == []  # the cell's code is not the module there
            plain = await session.change(cell_uri, setup + loop)
            assert _codes(plain) == [(6, "TL101")]
            (quick,) = await session.actions(cell_uri, plain[0].range, only=[types.CodeActionKind.QuickFix])
            assert await session.apply(quick) == []
            assert session.texts[cell_uri][1] == setup + loop.replace("    torch.nn", "    scaler.unscale_(opt)\n    torch.nn")
            # the same text as a Python file is a syntax error: the notebook's reading is the cell's alone
            assert _codes(await session.open(project / "nb_as_file.py", magics + setup)) == [(1, "TL000")]

    run(scenario())


NOTEBOOK_SYNC = types.ClientCapabilities(notebook_document=types.NotebookDocumentClientCapabilities(
    synchronization=types.NotebookDocumentSyncClientCapabilities()))


def test_a_notebook_synced_whole_is_linted_as_one_module_with_diagnostics_per_cell(project: Path) -> None:
    """With `notebookDocument/*` sync the cells are read together, as `trainlint
    check nb.ipynb` reads them: the optimizer made in cell 1 is the one stepped
    in cell 3 (TL401, no `zero_grad()`), which the loop's cell alone does not
    know; cells removed or without findings get none."""
    notebook_uri = (project / "nb.ipynb").as_uri()
    cell_uris = [f"vscode-notebook-cell:{notebook_uri[len('file:'):]}#cell{n}" for n in (1, 2, 3)]
    texts = ["%matplotlib inline\nimport torch\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n",
             "# Training", "for x in data:\n    loss = model(x).sum()\n    loss.backward()\n    opt.step()\n"]
    kinds = [types.NotebookCellKind.Code, types.NotebookCellKind.Markup, types.NotebookCellKind.Code]

    async def published(session: Editor, uris: list[str]) -> dict[str, list[types.Diagnostic]]:
        found: dict[str, list[types.Diagnostic]] = {}
        while set(found) != set(uris):
            params = await asyncio.wait_for(session.published.get(), TIMEOUT)
            if params.uri in uris and params.version in (None, session.texts[params.uri][0]):
                found[params.uri] = list(params.diagnostics)
        return found

    async def scenario() -> None:
        async with editor(project, capabilities=NOTEBOOK_SYNC) as session:
            for uri, text in zip(cell_uris, texts):
                session.texts[uri] = (1, text)
            session.client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
                notebook_document=types.NotebookDocument(
                    uri=notebook_uri, notebook_type="jupyter-notebook", version=1,
                    cells=[types.NotebookCell(kind=kind, document=uri) for kind, uri in zip(kinds, cell_uris)]),
                cell_text_documents=[
                    types.TextDocumentItem(uri=uri, language_id="python" if kind == types.NotebookCellKind.Code
                                           else "markdown", version=1, text=text)
                    for uri, text, kind in zip(cell_uris, texts, kinds)]))
            found = await published(session, cell_uris)
            assert found[cell_uris[0]] == [] and found[cell_uris[1]] == []
            assert _codes(found[cell_uris[2]]) == [(4, "TL401")]
            # the same loop as a lone cell: what `opt` is, is not known there
            assert _codes(await session.open(cell_uris[2] + "alone", texts[2])) == []
            # cell 1 removed: the loop's `opt` is no optimizer any more
            session.client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
                notebook_document=types.VersionedNotebookDocumentIdentifier(uri=notebook_uri, version=2),
                change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(
                    structure=types.NotebookDocumentCellChangeStructure(
                        array=types.NotebookCellArrayChange(start=0, delete_count=1),
                        did_close=[types.TextDocumentIdentifier(uri=cell_uris[0])])))))
            found = await published(session, cell_uris)
            assert found == {uri: [] for uri in cell_uris}

    run(scenario())


def test_a_uri_with_escapes_gets_its_code_actions(project: Path) -> None:
    """The workspace keeps documents by their uri unquoted: a path with a space
    (`%20`), as a notebook cell's `%3D` fragment, had no code actions before."""
    async def scenario() -> None:
        async with editor(project) as session:
            path = project / "my runs" / "train.py"
            uri = path.as_uri()
            assert "%20" in uri
            deprecated = _only(await session.open(path, TRAIN), "TL102")
            actions = await session.actions(uri, deprecated.range, only=[types.CodeActionKind.QuickFix])
            assert [a.title for a in actions] == ["Fix TL102: deprecated-amp-api"]

    run(scenario())


def test_unsafe_fixes_are_labelled_and_left_out_of_fix_all(project: Path) -> None:
    async def scenario() -> None:
        async with editor(project) as session:
            uri = (project / "train.py").as_uri()
            diagnostics = await session.open(project / "train.py", TRAIN)
            empty_cache = _only(diagnostics, "TL201")
            actions = await session.actions(uri, empty_cache.range, only=[types.CodeActionKind.QuickFix])
            assert [(a.title, a.is_preferred) for a in actions] == [
                ("Fix TL201: empty-cache-in-loop (unsafe fix)", False)
            ]
            whole = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=11, character=0))
            (fix_all,) = await session.actions(uri, whole, only=[types.CodeActionKind.SourceFixAll])
            assert fix_all.kind == "source.fixAll.trainlint"
            after = await session.apply(fix_all)
            assert _codes(after) == [(11, "TL201")]
            # nothing left to fix safely: no fix-all action
            assert await session.actions(uri, whole, only=[types.CodeActionKind.Source]) == []

    run(scenario())


def test_fix_all_with_unsafe_fixes_enabled(project: Path) -> None:
    async def scenario() -> None:
        async with editor(project, {"unsafeFixes": True}) as session:
            uri = (project / "train.py").as_uri()
            await session.open(project / "train.py", TRAIN)
            whole = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
            (fix_all,) = await session.actions(uri, whole, only=["source.fixAll.trainlint"])
            assert await session.apply(fix_all) == []
            assert "empty_cache" not in session.texts[uri][1]

    run(scenario())


def test_changes_relint_with_utf16_positions_and_the_edit_spans_only_the_change(project: Path) -> None:
    async def scenario() -> None:
        async with editor(project) as session:
            uri = (project / "model.py").as_uri()
            assert await session.open(project / "model.py", "import torch\n") == []
            # the emoji takes two UTF-16 code units, one code point
            text = 'import torch\nlabel = "🔥"; scaler = torch.cuda.amp.GradScaler()\n'
            (found,) = await session.change(uri, text)
            assert (found.range.start.line, found.range.start.character) == (1, 23)
            assert found.range.end.character == 50
            (quick,) = await session.actions(uri, found.range, only=["quickfix"])
            (edit,) = quick.edit.document_changes[0].edits  # type: ignore[union-attr]
            assert edit.range.start.line == edit.range.end.line == 1
            assert edit.range.start.character >= 23
            assert await session.apply(quick) == []
            assert session.texts[uri][1] == 'import torch\nlabel = "🔥"; scaler = torch.amp.GradScaler("cuda")\n'

    run(scenario())


def test_saving_relints_with_the_configuration_as_it_is_now(project: Path) -> None:
    async def scenario() -> None:
        async with editor(project) as session:
            uri = (project / "train.py").as_uri()
            assert _codes(await session.open(project / "train.py", TRAIN)) == [(3, "TL102"), (11, "TL201")]
            (project / "pyproject.toml").write_text(PYPROJECT + 'ignore = ["TL201"]\n')
            assert _codes(await session.save(uri)) == [(3, "TL102")]

    run(scenario())


def test_a_file_changed_on_disk_relints_the_open_documents(project: Path) -> None:
    """The editor says the configuration changed on disk (workspace/didChangeWatchedFiles):
    every open document is linted again with it, before any save of its own."""
    async def scenario() -> None:
        async with editor(project) as session:
            uri = (project / "train.py").as_uri()
            assert _codes(await session.open(project / "train.py", TRAIN)) == [(3, "TL102"), (11, "TL201")]
            (project / "pyproject.toml").write_text(PYPROJECT + 'ignore = ["TL201"]\n')
            session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
                types.FileEvent(uri=(project / "pyproject.toml").as_uri(), type=types.FileChangeType.Changed)]))
            assert _codes(await session.diagnostics(uri)) == [(3, "TL102")]

    run(scenario())


def test_a_broken_configuration_is_shown_once_and_nothing_is_reported(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.trainlint]\nselekt = ['TL1']\n")

    async def scenario() -> None:
        async with editor(tmp_path) as session:
            uri = (tmp_path / "train.py").as_uri()
            assert await session.open(tmp_path / "train.py", TRAIN) == []
            assert await session.change(uri, TRAIN + "\n") == []
            errors = [m for m in session.messages if m.type == types.MessageType.Error]
            assert len(errors) == 1 and "unknown key 'selekt'" in errors[0].message

    run(scenario())


# line breaks LSP counts (\r\n, \r, \n), one it does not (\f), and a character
# outside the BMP (two UTF-16 code units)
_TEXTS = st.text(alphabet="ab\r\n\x0c🔥", max_size=12)


@given(old=_TEXTS, new=_TEXTS)
@example(old="a\r\nb", new="a\rb")  # the common prefix ends inside \r\n
@example(old="a\r\nb", new="a\nb")  # and the common suffix starts inside it
def test_the_edit_of_a_fix_turns_the_old_text_into_the_new(old: str, new: str) -> None:
    edit = replacement(TextPositions(old, PositionCodec()), new)
    assert apply_edits(old, [edit]) == new


def test_server_without_pygls_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from trainlint.cli import main

    # import pygls now fails, also of a module of it an earlier test imported
    for name in [m for m in sys.modules if m.split(".")[0] == "pygls"] or ["pygls"]:
        monkeypatch.setitem(sys.modules, name, None)
    for name in [m for m in sys.modules if m.startswith("trainlint.lsp")]:
        monkeypatch.delitem(sys.modules, name)
    result = CliRunner().invoke(main, ["server"])
    assert result.exit_code == 2
    assert "pip install 'trainlint[lsp]'" in result.output
