"""`benchlint server`: a Language Server (LSP over stdio, with pygls) for editors.

- Diagnostics for shell and YAML files on open, change (debounced) and save. Each run lints the
  one file as `benchlint FILE` does, with the whole repository on disk as context and the
  editor's unsaved buffers in place of their files.
- Code actions: the finding's fix (the same edits `--fix` writes); an unsafe one is titled so
  and not preferred.
- Hover: on a finding, its rule's documentation; elsewhere in a recipe, how it reaches the job
  (`benchlint explain`).

Positions: benchlint counts columns in characters; LSP in UTF-16 code units (its default
encoding), converted here line by line.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from benchlint import __version__
from benchlint.cache import Cache
from benchlint.config import (
    Config,
    ConfigError,
    find_config,
    find_root,
    is_repository,
    load_config,
)
from benchlint.context import Context
from benchlint.engine import lint, select_rules
from benchlint.explain import ExplainError, explain, render_text
from benchlint.finding import Finding, Severity, Span
from benchlint.registry import Rule, expand_selectors
from benchlint.result import Result
from benchlint.workspace import SHELL_SUFFIXES, YAML_SUFFIXES, Kept

# Wait this long after the last keystroke before linting (a run takes a few tenths of a second).
DEBOUNCE_SECONDS = 0.3
_SEVERITY = {
    Severity.ERROR: lsp.DiagnosticSeverity.Error,
    Severity.WARNING: lsp.DiagnosticSeverity.Warning,
    Severity.NOTE: lsp.DiagnosticSeverity.Information,
}


@dataclass
class _Linted:
    """The last run on one document: its findings, to answer code actions and hovers."""

    result: Result
    path: str  # root-relative
    root: Path


class BenchlintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("benchlint", __version__)
        self.linted: dict[str, _Linted] = {}  # by document URI
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.lock = threading.Lock()  # one run at a time: the engine is not re-entrant
        # each repository's parsed files, reused by the next run where unchanged (an edit
        # re-parses the buffer, not the repository around it)
        self.kept: dict[Path, Kept] = {}

    # -- linting ---------------------------------------------------------------------------------
    def lint_document(self, uri: str) -> None:
        path = _path(uri)
        if path is None:
            return
        if not path.name.endswith(SHELL_SUFFIXES + YAML_SUFFIXES) and not _has_shebang(self, uri):
            return
        try:
            linted = self._lint(path)
        except ConfigError as exc:
            self.window_show_message(
                lsp.ShowMessageParams(lsp.MessageType.Error, f"benchlint: {exc}")
            )
            return
        self.linted[uri] = linted
        document = self.workspace.get_text_document(uri)
        diagnostics = [
            _diagnostic(finding, linted, document.lines)
            for finding in linted.result.findings
            if finding.location.path == linted.path
        ]
        for part, line in linted.result.partial:  # never silently blind, in the editor too
            if part == linted.path:
                start = lsp.Position(line - 1, 0)
                diagnostics.append(
                    lsp.Diagnostic(
                        range=lsp.Range(start, start),
                        message="bash accepts this script, but tree-sitter-bash parses it only "
                        "in part from here: some commands from this line on were not analysed",
                        severity=lsp.DiagnosticSeverity.Information,
                        source="benchlint",
                    )
                )
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=document.version)
        )

    def _lint(self, path: Path) -> _Linted:
        config_path = find_config(path)
        config = load_config(config_path) if config_path is not None else Config()
        root = find_root(path, config_path).resolve()
        # no configuration and no repository around it: the file alone, as `benchlint FILE` does
        standalone = config_path is None and not is_repository(root)
        rel = path.resolve().relative_to(root).as_posix()
        overlay = {
            _relative(doc.path, root): doc.source.encode("utf-8", errors="surrogateescape")
            for doc in self.workspace.text_documents.values()
            if _inside(doc.path, root)
        }
        chosen = expand_selectors(config.select) if config.select else None
        selection = select_rules(config, chosen, expand_selectors(config.ignore))
        with self.lock:
            result = lint(
                root,
                config,
                selection,
                [path],
                cache=Cache.default(None if standalone else root),
                standalone=standalone,
                overlay=overlay,
                kept=self.kept.setdefault(root, Kept()),
            )
        return _Linted(result, rel, root)

    def schedule(self, uri: str, delay: float = DEBOUNCE_SECONDS) -> None:
        """Lint after `delay`, unless the document changes again before then."""
        loop = asyncio.get_running_loop()
        previous = self.pending.pop(uri, None)
        if previous is not None:
            previous.cancel()

        def run() -> None:
            self.pending.pop(uri, None)
            loop.run_in_executor(None, self.lint_document, uri)

        self.pending[uri] = loop.call_later(delay, run)

    # -- answers ---------------------------------------------------------------------------------
    def findings_at(self, uri: str, line: int, start: int, end: int) -> list[Finding]:
        """The document's findings whose range meets lines `line`, characters start..end
        (LSP's 0-based UTF-16 positions)."""
        linted = self.linted.get(uri)
        if linted is None:
            return []
        lines = self.workspace.get_text_document(uri).lines
        found = []
        for finding in linted.result.findings:
            if finding.location.path != linted.path:
                continue
            rng = _range(finding.location.span, lines)
            if (rng.start.line, rng.start.character) <= (line, end) and (line, start) <= (
                rng.end.line,
                rng.end.character,
            ):
                found.append(finding)
        return found


def _has_shebang(server: BenchlintServer, uri: str) -> bool:
    text = server.workspace.get_text_document(uri).source
    return text.startswith("#!") and any(s in text.split("\n", 1)[0] for s in ("sh", "bash"))


def _path(uri: str) -> Path | None:
    parsed = urlparse(uri)
    return Path(unquote(parsed.path)) if parsed.scheme == "file" else None


def _inside(path: str, root: Path) -> bool:
    return Path(path).resolve().is_relative_to(root)


def _relative(path: str, root: Path) -> str:
    return Path(path).resolve().relative_to(root).as_posix()


def _character(lines: Sequence[str], line: int, column: int) -> int:
    """A 1-based column (characters) on a 1-based line as a 0-based UTF-16 offset."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    before = text[: column - 1]
    return (
        len(before) + sum(1 for ch in before if ord(ch) > 0xFFFF) + max(0, column - 1 - len(before))
    )


def _range(span: Span, lines: Sequence[str]) -> lsp.Range:
    return lsp.Range(
        start=lsp.Position(span.line - 1, _character(lines, span.line, span.column)),
        end=lsp.Position(span.end_line - 1, _character(lines, span.end_line, span.end_column)),
    )


def _diagnostic(finding: Finding, linted: _Linted, lines: Sequence[str]) -> lsp.Diagnostic:
    result = linted.result
    rule = result.rule(finding.rule)
    related = []
    for location in finding.related:
        target = linted.root / location.path
        other = _file_lines(result, location.path) if location.path != linted.path else lines
        related.append(
            lsp.DiagnosticRelatedInformation(
                location=lsp.Location(uri=target.as_uri(), range=_range(location.span, other)),
                message=location.label or "related location",
            )
        )
    return lsp.Diagnostic(
        range=_range(finding.location.span, lines),
        message=finding.full_message,
        severity=_SEVERITY[result.severity(finding)],
        code=finding.rule,
        code_description=lsp.CodeDescription(href=_help_uri(rule)) if rule is not None else None,
        source="benchlint",
        related_information=related or None,
        data={"fingerprint": finding.fingerprint},
    )


def _file_lines(result: Result, path: str) -> list[str]:
    source = result.source(path)
    return source.text.split("\n") if source is not None else []


def _help_uri(rule: Rule) -> str:
    from benchlint.report.sarif import _help_uri as uri

    return uri(rule)


def _code_action(finding: Finding, linted: _Linted, server: BenchlintServer) -> lsp.CodeAction:
    assert finding.fix is not None
    changes: dict[str, list[lsp.TextEdit]] = {}
    for edit in finding.fix.edits:
        uri = (linted.root / edit.path).as_uri()
        document = server.workspace.get_text_document(uri)
        lines = (
            document.lines if edit.path == linted.path else _file_lines(linted.result, edit.path)
        )
        lines = [line.rstrip("\n") for line in lines]
        changes.setdefault(uri, []).append(
            lsp.TextEdit(range=_range(edit.span, lines), new_text=edit.text)
        )
    safe = finding.fix.applicability == "safe"
    return lsp.CodeAction(
        title=f"{finding.fix.description} ({finding.rule}{'' if safe else ', unsafe'})",
        kind=lsp.CodeActionKind.QuickFix,
        edit=lsp.WorkspaceEdit(changes=changes),
        # an editor may apply a preferred fix by itself ("auto fix"): never one that changes
        # what runs
        is_preferred=safe,
    )


def create_server() -> BenchlintServer:
    server = BenchlintServer()

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: BenchlintServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: BenchlintServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: BenchlintServer, params: lsp.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: BenchlintServer, params: lsp.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.linted.pop(uri, None)
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]),
    )
    def code_action(ls: BenchlintServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        uri = params.text_document.uri
        linted = ls.linted.get(uri)
        if linted is None:
            return []
        rng = params.range
        actions = []
        for finding in ls.findings_at(uri, rng.start.line, rng.start.character, rng.end.character):
            if finding.fix is not None:
                actions.append(_code_action(finding, linted, ls))
        return actions

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: BenchlintServer, params: lsp.HoverParams) -> lsp.Hover | None:
        uri, position = params.text_document.uri, params.position
        here = ls.findings_at(uri, position.line, position.character, position.character)
        linted = ls.linted.get(uri)
        if here and linted is not None:
            docs = []
            for finding in here:
                rule = linted.result.rule(finding.rule)
                if rule is not None:
                    docs.append(f"**{rule.id} {rule.name}**\n\n{rule.doc}")
            return lsp.Hover(
                contents=lsp.MarkupContent(lsp.MarkupKind.Markdown, "\n\n---\n\n".join(docs))
            )
        if linted is None or not linted.path.endswith(YAML_SUFFIXES):
            return None
        text = _how_reached(linted)
        if not text:
            return None
        return lsp.Hover(
            contents=lsp.MarkupContent(
                lsp.MarkupKind.Markdown, f"**How this recipe reaches the job**\n\n```\n{text}```"
            )
        )

    return server


def _how_reached(linted: _Linted) -> str:
    """`benchlint explain` for a recipe or a script; empty for a file no entry reaches."""
    workspace = linted.result.workspace
    if workspace is None:
        return ""
    ctx = Context(workspace)
    try:
        return render_text(explain(ctx, linted.path))
    except ExplainError:
        return ""


def serve() -> None:
    create_server().start_io()
