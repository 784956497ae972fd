"""`benchlint server` through pygls's own language client, as an editor drives it over stdio."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

from tests.conftest import copy_example, write_repo

TIMEOUT = 60


class _Client(LanguageClient):
    def __init__(self) -> None:
        super().__init__("benchlint-test", "1")
        self.diagnostics: dict[str, asyncio.Queue[list[lsp.Diagnostic]]] = {}

    def queue(self, uri: str) -> asyncio.Queue[list[lsp.Diagnostic]]:
        return self.diagnostics.setdefault(uri, asyncio.Queue())


async def _session(root: Path, body) -> None:  # type: ignore[no-untyped-def]
    client = _Client()

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def published(params: lsp.PublishDiagnosticsParams) -> None:
        client.queue(params.uri).put_nowait(params.diagnostics)

    await client.start_io(sys.executable, "-m", "benchlint", "server")
    try:
        await client.initialize_async(
            lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), root_uri=root.as_uri())
        )
        client.initialized(lsp.InitializedParams())
        await asyncio.wait_for(body(client), TIMEOUT)
        await asyncio.wait_for(client.shutdown_async(None), TIMEOUT)
        client.exit(None)
    finally:
        server = getattr(client, "_server", None)  # a failed test must not wait for it forever
        if server is not None and server.returncode is None:
            await asyncio.sleep(0.5)
            if server.returncode is None:
                server.kill()
        await client.stop()


def _open(client: _Client, path: Path, text: str | None = None) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri, "shellscript", 1, text or path.read_text())
        )
    )
    return uri


def test_diagnostics_fixes_and_hover_on_a_launcher(tmp_path: Path) -> None:
    """Open a launcher of the example: its findings with exact ranges (the PORT export needs the
    master config and workflows, which the editor never opened), a quick fix, the rule's
    documentation on hover; an edit not yet saved is linted from the buffer."""
    root = tmp_path / "example"
    copy_example(root)
    launcher = root / "runners" / "launch_b200-dgxc.sh"

    async def body(client: _Client) -> None:
        uri = _open(client, launcher)
        diagnostics = await client.queue(uri).get()
        found = [
            (d.code, d.range.start.line, d.range.start.character, d.range.end.character)
            for d in diagnostics
        ]
        assert found == [("BL101", 6, 7, 19), ("BL102", 19, 4, 19)]
        port = diagnostics[0]
        assert port.severity == lsp.DiagnosticSeverity.Error and port.source == "benchlint"
        assert port.related_information is not None
        assert port.related_information[0].location.uri.endswith("/configs/nvidia-master.yaml")

        actions = await client.text_document_code_action_async(
            lsp.CodeActionParams(
                lsp.TextDocumentIdentifier(uri),
                lsp.Range(lsp.Position(19, 6), lsp.Position(19, 6)),
                lsp.CodeActionContext(diagnostics=[]),
            )
        )
        assert actions is not None and len(actions) == 1
        action = actions[0]
        assert isinstance(action, lsp.CodeAction) and action.edit and action.edit.changes
        # it stops the launcher where it went on: offered, never preferred (an editor's auto fix)
        assert action.title == "stop when the lock is not acquired (BL102, unsafe)"
        assert action.is_preferred is False
        (edit,) = action.edit.changes[uri]
        assert edit.new_text == " || { echo lock failed >&2; exit 1; }"
        assert (edit.range.start.line, edit.range.start.character) == (19, 19)

        hover = await client.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(19, 8))
        )
        assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
        assert hover.contents.value.startswith("**BL102 unguarded-lock**")

        # the buffer, not the disk: guarding the lock in the editor clears BL102
        text = launcher.read_text().replace("flock -w 1800 9", "flock -w 1800 9 || exit 1")
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(version=2, uri=uri),
                [lsp.TextDocumentContentChangeWholeDocument(text)],
            )
        )
        diagnostics = await client.queue(uri).get()
        assert [d.code for d in diagnostics] == ["BL101"]

    asyncio.run(_session(root, body))


def test_a_recipe_hover_says_how_it_reaches_the_job(tmp_path: Path) -> None:
    root = tmp_path / "example"
    copy_example(root)
    recipe = root / "benchmarks/multi_node/srt-slurm-recipes/sglang/glm5/zip-1k1k.yaml"

    async def body(client: _Client) -> None:
        uri = _open(client, recipe)
        diagnostics = await client.queue(uri).get()
        assert sorted(d.code for d in diagnostics) == ["BL204", "BL206"]
        hover = await client.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(0, 0))
        )
        assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
        assert "How this recipe reaches the job" in hover.contents.value
        assert "glm5-fp4-gb200-dynamo-sglang" in hover.contents.value

    asyncio.run(_session(root, body))


def test_a_file_outside_any_repository_is_linted_alone(tmp_path: Path) -> None:
    loose = write_repo(tmp_path / "loose", {"run.sh": "set +e\nflock -w 5 9\n"})
    (loose / ".benchlint.toml").unlink()

    async def body(client: _Client) -> None:
        uri = _open(client, loose / "run.sh")
        diagnostics = await client.queue(uri).get()
        assert [(d.code, d.range.start.line) for d in diagnostics] == [("BL102", 1)]

    asyncio.run(_session(loose, body))


def test_a_script_parsed_in_part_says_so_where_the_parse_stopped(tmp_path: Path) -> None:
    root = write_repo(tmp_path / "r", {"run.sh": 'set +e\nD="${D:/tmp/x}"\nflock -w 5 9\n'})

    async def body(client: _Client) -> None:
        uri = _open(client, root / "run.sh")
        diagnostics = await client.queue(uri).get()
        assert [(d.code, d.severity, d.range.start.line) for d in diagnostics] == [
            ("BL105", lsp.DiagnosticSeverity.Error, 1),
            ("BL102", lsp.DiagnosticSeverity.Error, 2),
            (None, lsp.DiagnosticSeverity.Information, 1),
        ]
        assert "parses it only in part" in diagnostics[2].message

    asyncio.run(_session(root, body))
