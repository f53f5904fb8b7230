"""``perfalign serve`` end to end: the real server process, driven as an editor would drive it."""
from __future__ import annotations

import asyncio
import itertools
import json
import os
import shutil
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient
from pytest_lsp.client import make_test_lsp_client

WORKSPACE = Path(__file__).resolve().parent / "workspace"
PERFALIGN = str(Path(sys.executable).parent / "perfalign")
_ids = itertools.count()


def capabilities(*, resolve_edit: bool = False, diff_notification: bool = True) -> types.ClientCapabilities:
    return types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            configuration=True,
            apply_edit=True,
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True),
            did_change_configuration=types.DidChangeConfigurationClientCapabilities(),
        ),
        window=types.WindowClientCapabilities(
            work_done_progress=True,
            show_document=types.ShowDocumentClientCapabilities(support=True),
        ),
        text_document=types.TextDocumentClientCapabilities(
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(value_set=["refactor", "quickfix"])
                ),
                resolve_support=types.ClientCodeActionResolveOptions(properties=["edit"]) if resolve_edit else None,
                data_support=True,
            ),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(),
        ),
        experimental={"perfalignShowDiff": True} if diff_notification else None,
    )


@dataclass
class Editor:
    """The client, the workspace folder it opened and the text of its open documents."""

    client: LanguageClient
    root: Path
    texts: dict[str, str] = field(default_factory=dict)
    versions: dict[str, int] = field(default_factory=dict)
    diffs: list[dict[str, Any]] = field(default_factory=list)
    finished: list[dict[str, Any]] = field(default_factory=list)
    applied: list[types.ApplyWorkspaceEditParams] = field(default_factory=list)
    init: types.InitializeResult | None = None

    def uri(self, name: str) -> str:
        return from_fs_path(str(self.root / name)) or ""

    def open(self, name: str, text: str | None = None, language: str = "c") -> str:
        uri = self.uri(name)
        text = (self.root / name).read_text() if text is None else text
        self.texts[uri] = text
        self.versions[uri] = 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text))
        )
        return uri

    def replace_text(self, uri: str, text: str) -> None:
        self.texts[uri] = text
        self.versions[uri] += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    def apply(self, edit: types.WorkspaceEdit) -> None:
        """Apply a workspace edit as an editor does, and tell the server the new text."""
        for uri, edits in edits_of(edit).items():
            self.replace_text(uri, apply_text_edits(self.texts[uri], edits))

    def close(self, uri: str) -> None:
        self.client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))

    async def actions(self, uri: str, line: int, only: list[str] | None = None) -> list[types.CodeAction]:
        params = types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=types.Range(types.Position(line, 0), types.Position(line, 0)),
            context=types.CodeActionContext(diagnostics=[], only=only),
        )
        # Read the answer as an editor does: lsprotocol's converter takes any
        # item with a "command" key for a bare Command, so structure it here.
        protocol = self.client.protocol
        msg_id = f"code-action-{next(_ids)}"
        future = protocol.send_request(types.TEXT_DOCUMENT_CODE_ACTION, params, msg_id=msg_id)
        protocol._result_types[msg_id] = None
        result = await asyncio.wrap_future(future)
        return [protocol._converter.structure(item, types.CodeAction) for item in result or []]

    async def command(self, command: types.Command | None) -> Any:
        assert command is not None
        return await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command.command, arguments=command.arguments)
        )

    async def run(self, name: str, *arguments: Any) -> Any:
        return await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=name, arguments=list(arguments))
        )

    async def wait_finished(self, count: int = 1, timeout: float = 240.0) -> dict[str, Any]:
        deadline = asyncio.get_running_loop().time() + timeout
        while len(self.finished) < count:
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"no job finished within {timeout} s; messages: {self.client.messages}")
            await asyncio.sleep(0.05)
        return self.finished[count - 1]


def edits_of(edit: types.WorkspaceEdit) -> dict[str, list[types.TextEdit]]:
    out: dict[str, list[types.TextEdit]] = {}
    for change in edit.document_changes or []:
        assert isinstance(change, types.TextDocumentEdit)
        out.setdefault(change.text_document.uri, []).extend(e for e in change.edits if isinstance(e, types.TextEdit))
    for uri, edits in (edit.changes or {}).items():
        out.setdefault(uri, []).extend(edits)
    return out


def offset_of(text: str, position: types.Position) -> int:
    """UTF-16 position to a str index (the fixtures are ASCII, but keep it honest)."""
    lines = text.splitlines(keepends=True)
    before = sum(len(line) for line in lines[: position.line])
    line = lines[position.line] if position.line < len(lines) else ""
    units = 0
    for i, ch in enumerate(line):
        if units >= position.character:
            return before + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return before + len(line)


def apply_text_edits(text: str, edits: list[types.TextEdit]) -> str:
    spans = sorted(((offset_of(text, e.range.start), offset_of(text, e.range.end), e.new_text) for e in edits), reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def write_replies(path: Path, codes: list[str]) -> Path:
    path.write_text(json.dumps([f"```c\n{code}\n```" for code in codes]))
    return path


@asynccontextmanager
async def editor(
    tmp_path: Path,
    settings: dict[str, Any] | None = None,
    *,
    resolve_edit: bool = False,
    diff_notification: bool = True,
    env: dict[str, str] | None = None,
) -> AsyncIterator[Editor]:
    """Start ``perfalign serve`` on a copy of tests/workspace and initialize it."""
    root = tmp_path / "ws"
    shutil.copytree(WORKSPACE, root)
    client = make_test_lsp_client()
    ed = Editor(client, root)
    client.set_configuration(settings or {}, section="perfalign")

    @client.feature("perfalign/showDiff")
    def _show_diff(ls: LanguageClient, params: Any) -> None:
        ed.diffs.append(_plain(params))

    @client.feature("perfalign/jobFinished")
    def _finished(ls: LanguageClient, params: Any) -> None:
        ed.finished.append(_plain(params))

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def _apply_edit(ls: LanguageClient, params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        ed.applied.append(params)
        ed.apply(params.edit)
        return types.ApplyWorkspaceEditResult(applied=True)

    await client.start_io(PERFALIGN, "serve", env={**os.environ, **(env or {})})
    try:
        ed.init = await client.initialize_session(
            types.InitializeParams(
                capabilities=capabilities(resolve_edit=resolve_edit, diff_notification=diff_notification),
                root_uri=from_fs_path(str(root)),
                workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(str(root)) or "", name="ws")],
            )
        )
        yield ed
    finally:
        try:
            await asyncio.wait_for(client.shutdown_session(), timeout=60)
        finally:
            await client.stop()


def _plain(params: Any) -> dict[str, Any]:
    if isinstance(params, dict):
        return params
    return {k: getattr(params, k) for k in dir(params) if not k.startswith("_")}


def fake_settings(tmp_path: Path, codes: list[str], **extra: Any) -> dict[str, Any]:
    return {
        "backend": "fake",
        "endpoint": str(write_replies(tmp_path / "replies.json", codes)),
        "samples": len(codes),
        "dbPath": str(tmp_path / "prefs.db"),
        **extra,
    }


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n")


# ---------------------------------------------------------------- offering actions


async def test_actions_are_offered_on_a_function_and_not_outside_one(tmp_path: Path) -> None:
    async with editor(tmp_path) as ed:
        assert ed.init is not None
        caps = ed.init.capabilities
        text = (ed.root / "kernels.c").read_text()
        uri = ed.open("kernels.c")
        inside = await ed.actions(uri, line_of(text, "s += x[i] * x[i]"))
        assert [a.title for a in inside] == ["Optimize this function", "Parallelize with OpenMP"], ed.client.messages
        assert [a.kind for a in inside] == ["refactor.rewrite.optimize", "refactor.rewrite.parallelize.openmp"]
        assert inside[0].command is not None and inside[0].command.arguments[0]["function"] == "sum_squares"
        assert await ed.actions(uri, line_of(text, "kRepeat = 1")) == []
        assert await ed.actions(uri, 0) == []
        only = await ed.actions(uri, line_of(text, "y[i] = a * x[i]"), only=["refactor.rewrite.parallelize"])
        assert [a.title for a in only] == ["Parallelize with OpenMP"]
        assert await ed.actions(uri, line_of(text, "y[i] = a * x[i]"), only=["quickfix"]) == []
    assert caps is not None
    options = caps.code_action_provider
    assert isinstance(options, types.CodeActionOptions) and options.resolve_provider
    assert set(options.code_action_kinds or []) == {"refactor.rewrite.optimize", "refactor.rewrite.parallelize.openmp"}
    assert {"perfalign.optimize", "perfalign.parallelize", "perfalign.apply", "perfalign.showDiff", "perfalign.reject",
            "perfalign.cancel", "perfalign.report"} <= set(caps.execute_command_provider.commands)


async def test_invalid_settings_are_reported_and_replaced_by_defaults(tmp_path: Path) -> None:
    async with editor(tmp_path, {"samples": "lots", "threads": 3}) as ed:
        report = await ed.run("perfalign.report")
        for _ in range(100):
            if report["settings"]["threads"] == 3:
                break
            await asyncio.sleep(0.05)
            report = await ed.run("perfalign.report")
        assert report["settings"]["samples"] == 4 and report["settings"]["threads"] == 3
        assert any("'samples'" in m.message for m in ed.client.messages)
        assert any("effective settings" in m.message for m in ed.client.log_messages)
        ed.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"perfalign": {"samples": 2}})
        )
        report = await ed.run("perfalign.report")
        assert report["settings"]["samples"] == 2 and report["settingsErrors"] == []


# ---------------------------------------------------------------- bad input


async def test_the_server_survives_bad_input(tmp_path: Path) -> None:
    async with editor(tmp_path) as ed:
        text = (ed.root / "kernels.c").read_text()
        # A file that does not parse: no action, and the command says why.
        broken = ed.open("broken.c")
        assert await ed.actions(broken, 1) == []
        answer = await ed.run("perfalign.optimize", {"uri": broken, "line": 1})
        assert answer["status"] in {"no_function", "parse_error"}
        # A cursor outside any function.
        uri = ed.open("kernels.c")
        answer = await ed.run("perfalign.optimize", {"uri": uri, "line": line_of(text, "kRepeat = 1")})
        assert answer["status"] == "no_function" and "not inside a function" in answer["message"]
        # A declaration without a body in a header: nothing to optimize there.
        header = ed.open("header_only.h", language="c")
        assert await ed.actions(header, 6) == []
        # Text that was not UTF-8 on disk arrives with undecodable characters.
        bad = ed.open("latin1.c", "int f(int n) { /* caf\udce9 */ return n; }\n")
        assert await ed.actions(bad, 0) == []
        # A huge file.
        huge = ed.open("huge.c", "int g(int n) { return n; }\n" + "// padding\n" * 250_000)
        assert await ed.actions(huge, 0) == []
        # A document the server never saw, and a command without arguments.
        answer = await ed.run("perfalign.optimize", {"uri": ed.uri("missing.c"), "line": 0})
        assert answer["status"] == "not_found"
        answer = await ed.run("perfalign.apply", {"uri": uri, "suggestion": "nope"})
        assert answer["status"] == "unknown_suggestion"
        assert (await ed.run("perfalign.optimize"))["status"] == "bad_request"
        # An unsaved buffer gets actions like any other.
        unsaved = ed.open("untitled-1.c", "double dot(const double *a, const double *b, int n) {\n"
                          "  double s = 0; for (int i = 0; i < n; i++) s += a[i] * b[i]; return s;\n}\n")
        assert [a.title for a in await ed.actions(unsaved, 1)] == ["Optimize this function", "Parallelize with OpenMP"]
        # Still serving.
        assert len(await ed.actions(uri, line_of(text, "y[i] = a * x[i]"))) == 2
        messages = " | ".join(m.message for m in ed.client.messages)
        assert "UTF-8" in messages and "MB" in messages
        assert "Traceback" not in messages
