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

from perfalign.server import llama_lib

WORKSPACE = Path(__file__).resolve().parents[1] / "workspace"
PERFALIGN = str(Path(sys.executable).parent / "perfalign")
_ids = itertools.count()


def capabilities(*, resolve_edit: bool = False, diff_notification: bool = True,
                 tag_support: bool = False) -> types.ClientCapabilities:
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
                tag_support=types.CodeActionTagOptions(value_set=[types.CodeActionTag.LlmGenerated])
                if tag_support else None,
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

    async def actions(self, uri: str, line: int, only: list[str] | None = None,
                      diagnostics: list[types.Diagnostic] | None = None) -> list[types.CodeAction]:
        params = types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=types.Range(types.Position(line, 0), types.Position(line, 0)),
            context=types.CodeActionContext(diagnostics=diagnostics or [], only=only),
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
    tag_support: bool = False,
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
                capabilities=capabilities(resolve_edit=resolve_edit, diff_notification=diff_notification,
                                          tag_support=tag_support),
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


def _plain(params: Any) -> Any:
    """A notification's params as plain JSON values (pygls hands them over as named tuples)."""
    if hasattr(params, "_asdict"):
        return {k: _plain(v) for k, v in params._asdict().items()}
    if isinstance(params, dict):
        return {k: _plain(v) for k, v in params.items()}
    if isinstance(params, (list, tuple)):
        return [_plain(v) for v in params]
    return params


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
        # Listing actions loads no model and imports no machine-learning library.
        report = await ed.run("perfalign.report")
        assert report["model"] is None and report["heavyModules"] == []
        # Which llama.cpp build the model would run on, read without loading it.
        assert report["llamaBuild"] == llama_lib.installed_build().summary()
        # Whether OpenMP rewrites get the race detector, in words.
        from perfalign.server.verify import archer_available

        assert report["raceDetection"].startswith("available" if archer_available() else "not available")
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


def test_serve_over_tcp_answers_initialize(tmp_path: Path) -> None:
    import socket
    import subprocess

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen([PERFALIGN, "serve", "--tcp", f"127.0.0.1:{port}"], stderr=subprocess.PIPE)
    try:
        for _ in range(200):
            try:
                conn = socket.create_connection(("127.0.0.1", port), timeout=30)
                break
            except OSError:
                if proc.poll() is not None:
                    raise AssertionError(f"the server exited: {proc.stderr.read().decode() if proc.stderr else ''}")
                import time

                time.sleep(0.05)
        else:
            raise AssertionError("nothing listened on the port")
        with conn:
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                               "params": {"processId": None, "rootUri": None, "capabilities": {}}}).encode()
            conn.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            header, _, rest = data.partition(b"\r\n\r\n")
            length = int(header.split(b":")[1].split(b"\r\n")[0])
            while len(rest) < length:
                rest += conn.recv(65536)
            answer = json.loads(rest[:length])
        assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "perfalign"
        assert answer["result"]["capabilities"]["codeActionProvider"]["resolveProvider"] is True
    finally:
        proc.terminate()
        assert proc.wait(timeout=30) is not None


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
        # In a header: the inline function is offered, a declaration without a body is not.
        header = ed.open("header_only.h", language="c")
        assert len(await ed.actions(header, 3)) == 2
        assert await ed.actions(header, 6) == []
        # Text that was not UTF-8 on disk arrives with undecodable characters.
        bad = ed.open("latin1.c", "int f(int n) { /* caf\udce9 */ return n; }\n")
        assert await ed.actions(bad, 0) == []
        # A huge file.
        huge = ed.open("huge.c", "int g(int n) { return n; }\n" + "// padding\n" * 1_200_000)  # 13 MB
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
        # A change to a document that was never opened (a client bug).
        ed.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=ed.uri("never.c"), version=2),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text="int h;")],
            )
        )
        # Still serving.
        assert len(await ed.actions(uri, line_of(text, "y[i] = a * x[i]"))) == 2
        messages = " | ".join(m.message for m in ed.client.messages)
        assert "UTF-8" in messages and "MB" in messages
        assert "Traceback" not in messages


# ---------------------------------------------------------------- jobs (fake model, real gcc, real SQLite)

FAST = """double sum_squares(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += x[i] * x[i];
    }
    return s * kRepeat;
}"""

FAST_TOO = """double sum_squares(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        const double v = x[i];
        s += v * v;
    }
    return s * kRepeat;
}"""

WRONG = """double sum_squares(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += x[i];
    }
    return s * kRepeat;
}"""

QUICK = {"repetitions": 7, "minTimeMs": 1}


def function_span(text: str, start: str = "double sum_squares(") -> tuple[int, int]:
    begin = text.index(start)
    end = text.index("\n}\n", begin) + 2
    return begin, end


def start_line(text: str) -> int:
    return line_of(text, "double sum_squares(")


async def feedback_rows(db: Path, expect: int, timeout: float = 20.0) -> list[tuple[str, str, str]]:
    """The feedback table once it holds ``expect`` rows (the server writes from its own thread)."""
    import sqlite3

    rows: list[tuple[str, str, str]] = []
    for _ in range(int(timeout / 0.1)):
        if db.exists():
            with sqlite3.connect(db) as conn:
                rows = conn.execute("SELECT candidate_id, action, source FROM feedback ORDER BY created_at, id").fetchall()
            if len(rows) >= expect:
                return rows
        await asyncio.sleep(0.1)
    return rows


async def start_job(ed: Editor, uri: str, line: int, title: str = "Optimize this function") -> dict[str, Any]:
    [action] = [a for a in await ed.actions(uri, line) if a.title == title]
    answer = await ed.command(action.command)
    assert answer["status"] == "started", answer
    return answer


async def test_a_verified_rewrite_replaces_exactly_the_function_and_is_logged(tmp_path: Path) -> None:
    settings = fake_settings(tmp_path, [FAST], **QUICK)
    async with editor(tmp_path, settings) as ed:
        text = (ed.root / "kernels.c").read_text()
        uri = ed.open("kernels.c")
        answer = await start_job(ed, uri, start_line(text) + 2)
        # The function moves while the job runs: the result follows it.
        ed.replace_text(uri, "// a new first line\n" + text)
        done = await ed.wait_finished()
        assert done["status"] == "verified", done
        assert len(done["suggestions"]) == 1

        reports = ed.client.progress_reports[f"perfalign/{answer['job']}"]
        assert isinstance(reports[0], types.WorkDoneProgressBegin) and reports[0].cancellable
        assert isinstance(reports[-1], types.WorkDoneProgressEnd)
        middle = [r for r in reports if isinstance(r, types.WorkDoneProgressReport)]
        assert middle and all(r.percentage is not None and 0 <= r.percentage <= 100 for r in middle)
        assert [r.percentage for r in middle] == sorted(r.percentage for r in middle)
        assert any("verifying" in (r.message or "") or "sampling" in (r.message or "") for r in middle)

        moved = ed.texts[uri]
        [diagnostic] = ed.client.diagnostics[uri]
        assert diagnostic.severity == types.DiagnosticSeverity.Information and diagnostic.source == "perfalign"
        assert diagnostic.range.start.line == start_line(moved)
        assert "faster" in diagnostic.message

        actions = await ed.actions(uri, start_line(moved) + 3)
        titles = [a.title for a in actions]
        assert titles[0].startswith("Apply verified rewrite: ") and "× faster (95% CI " in titles[0]
        assert any(t.startswith("Show diff") for t in titles) and any(t.startswith("Reject suggestion") for t in titles)
        apply = actions[0]
        assert apply.is_preferred and apply.edit is not None
        [(edit_uri, edits)] = edits_of(apply.edit).items()
        assert edit_uri == uri and len(edits) == 1
        begin, end = function_span(moved)
        ed.apply(apply.edit)
        assert ed.texts[uri] == moved[:begin] + FAST + moved[end:]
        assert (await ed.command(apply.command))["status"] == "applied"

        db = tmp_path / "prefs.db"
        rows = await feedback_rows(db, 1)
        assert [(r[1], r[2]) for r in rows] == [("accepted", "lsp")]
        assert rows[0][0] == done["suggestions"][0]["candidateId"]
        # No diagnostic is left once the rewrite is in place.
        assert list(ed.client.diagnostics[uri]) == []
        rewritten = ed.texts[uri]
        # The editor's undo is not an edit of the rewrite: nothing is logged and it is offered again.
        ed.replace_text(uri, moved)
        again = await ed.actions(uri, start_line(moved) + 3)
        assert again[0].title == apply.title and again[0].edit is not None
        await asyncio.sleep(0.5)
        assert len(await feedback_rows(db, 1)) == 1
        ed.apply(again[0].edit)
        assert ed.texts[uri] == rewritten
        await ed.command(again[0].command)
        # Editing the applied rewrite is logged.
        ed.replace_text(uri, rewritten.replace("s += x[i] * x[i];", "s += x[i] * x[i]; /* mine */ s += 0.0;"))
        rows = await feedback_rows(db, 3)
        assert [r[1] for r in rows] == ["accepted", "accepted", "edited_after_accept"]


# The second candidate hangs once inputs grow: its check runs until the run time limit,
# long after the first candidate was verified.
HANGS = """double sum_squares(const double *x, int n) {
    volatile int spin = 1;
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += x[i] * x[i];
    }
    while (spin && n > 100) {
    }
    return s * kRepeat;
}"""


async def first_offer(ed: Editor, uri: str, line: int, old: object = None, timeout: float = 120.0) -> list[types.CodeAction]:
    """The code actions once the running job offers a verified rewrite (other than the suggestion ``old``)."""
    deadline = asyncio.get_running_loop().time() + timeout
    ended = len(ed.finished)
    while asyncio.get_running_loop().time() < deadline:
        actions = await ed.actions(uri, line)
        if actions and actions[0].title.startswith("Apply verified rewrite") and actions[0].data != old:
            return actions
        assert len(ed.finished) == ended, f"the job ended before offering anything: {ed.finished}"
        await asyncio.sleep(0.1)
    raise AssertionError(f"nothing was offered within {timeout} s")


async def test_a_rewrite_is_offered_as_soon_as_it_is_verified_and_applying_it_ends_the_job(tmp_path: Path) -> None:
    settings = fake_settings(tmp_path, [FAST, HANGS], **QUICK)
    async with editor(tmp_path, settings) as ed:
        text = (ed.root / "kernels.c").read_text()
        uri = ed.open("kernels.c")
        pid = (await ed.run("perfalign.report"))["pid"]
        answer = await start_job(ed, uri, start_line(text))
        actions = await first_offer(ed, uri, start_line(text))
        titles = [a.title for a in actions]
        assert "Cancel optimizing sum_squares" in titles  # the job is still checking the other candidate
        assert any(t.startswith("Show diff") for t in titles) and any(t.startswith("Reject suggestion") for t in titles)
        [diagnostic] = ed.client.diagnostics[uri]
        assert "still checking the other candidates" in diagnostic.message and "faster" in diagnostic.message
        ed.apply(actions[0].edit)
        assert (await ed.command(actions[0].command))["status"] == "applied"
        done = await ed.wait_finished(timeout=60)
        assert done["status"] == "applied" and done["job"] == answer["job"], done
        assert isinstance(ed.client.progress_reports[f"perfalign/{answer['job']}"][-1], types.WorkDoneProgressEnd)
        begin, end = function_span(text)
        assert ed.texts[uri] == text[:begin] + FAST + text[end:]
        rows = await feedback_rows(tmp_path / "prefs.db", 1)
        assert [r[1] for r in rows] == ["accepted"]
        for _ in range(100):  # the hanging candidate's run was killed with the job
            if not descendants(pid):
                break
            await asyncio.sleep(0.05)
        assert descendants(pid) == []
        assert not any("cancelled" in m.message for m in ed.client.messages)


async def test_a_rewrite_offered_early_keeps_its_key_to_the_end_or_after_a_cancel(tmp_path: Path) -> None:
    settings = fake_settings(tmp_path, [FAST, HANGS], runTimeoutS=3, **QUICK)
    async with editor(tmp_path, settings) as ed:
        text = (ed.root / "kernels.c").read_text()
        uri = ed.open("kernels.c")
        await start_job(ed, uri, start_line(text))
        early = (await first_offer(ed, uri, start_line(text)))[0]
        done = await ed.wait_finished(timeout=120)  # the hanging candidate times out
        assert done["status"] == "verified", done
        assert [s["suggestion"] for s in done["suggestions"]] == [early.data["suggestion"]]
        final = await ed.actions(uri, start_line(text))
        assert final[0].title == early.title and final[0].data == early.data
        assert "Optimize this function" in [a.title for a in final]

        # Cancelled after a rewrite was verified: that rewrite is still offered.
        await start_job(ed, uri, start_line(text))
        early = (await first_offer(ed, uri, start_line(text), old=early.data))[0]
        cancel = next(a for a in await ed.actions(uri, start_line(text)) if a.title.startswith("Cancel"))
        await ed.command(cancel.command)
        done = await ed.wait_finished(2, timeout=60)
        assert done["status"] == "cancelled" and [s["suggestion"] for s in done["suggestions"]] == [early.data["suggestion"]]
        assert (await ed.actions(uri, start_line(text)))[0].title == early.title
        assert any("still offered" in m.message for m in ed.client.messages)


async def test_reject_show_diff_and_dismiss_are_logged(tmp_path: Path) -> None:
    settings = fake_settings(tmp_path, [FAST, FAST_TOO], **QUICK)
    async with editor(tmp_path, settings, resolve_edit=True) as ed:
        text = (ed.root / "kernels.c").read_text()
        uri = ed.open("kernels.c")
        await start_job(ed, uri, start_line(text))
        done = await ed.wait_finished()
        assert done["status"] == "verified" and len(done["suggestions"]) == 2, done
        actions = await ed.actions(uri, start_line(text))
        applies = [a for a in actions if a.title.startswith("Apply")]
        assert len(applies) == 2 and all(a.edit is None for a in applies)  # the client resolves edits
        resolved = await ed.client.code_action_resolve_async(applies[0])
        [(_, [edit])] = edits_of(resolved.edit).items()
        begin, end = function_span(text)
        assert apply_text_edits(text, [edit]) == text[:begin] + edit.new_text + text[end:]

        show = next(a for a in actions if a.title.startswith("Show diff"))
        assert (await ed.command(show.command))["status"] == "shown"
        [diff] = ed.diffs
        assert diff["uri"] == uri and diff["original"] == text[begin:end]
        assert diff["candidate"].strip() in (FAST, FAST_TOO) and "faster" in diff["title"]

        reject = next(a for a in actions if a.title.startswith("Reject"))
        assert (await ed.command(reject.command))["status"] == "rejected"
        assert len([a for a in await ed.actions(uri, start_line(text)) if a.title.startswith("Apply")]) == 1
        # Editing the function leaves the other suggestion unused.
        ed.replace_text(uri, text.replace("double s = 0.0;", "double s = 0.0; /* start */", 1))
        db = tmp_path / "prefs.db"
        rows = await feedback_rows(db, 2)
        assert sorted(r[1] for r in rows) == ["dismissed", "rejected"]
        assert {r[0] for r in rows} == {s["candidateId"] for s in done["suggestions"]}
        assert not [a for a in await ed.actions(uri, start_line(text)) if a.title.startswith("Apply")]
        assert list(ed.client.diagnostics[uri]) == []


async def test_running_without_the_sandbox_is_said_once_in_the_editor(tmp_path: Path) -> None:
    settings = fake_settings(tmp_path, [FAST], sandbox=False, **QUICK)
    async with editor(tmp_path, settings) as ed:
        text = (ed.root / "kernels.c").read_text()
        uri = ed.open("kernels.c")
        await start_job(ed, uri, start_line(text) + 2)
        await ed.wait_finished()
        await start_job(ed, uri, start_line(ed.texts[uri]) + 2)
        await ed.wait_finished(2)
        warnings = [m for m in ed.client.messages if "sandbox is switched off" in m.message]
        assert len(warnings) == 1 and warnings[0].type == types.MessageType.Warning
        assert "sandbox = true" in warnings[0].message


async def test_show_diff_falls_back_to_a_diff_document(tmp_path: Path) -> None:
    async with editor(tmp_path, fake_settings(tmp_path, [FAST], **QUICK), diff_notification=False) as ed:
        text = (ed.root / "kernels.c").read_text()
        uri = ed.open("kernels.c")
        await start_job(ed, uri, start_line(text))
        assert (await ed.wait_finished())["status"] == "verified"
        show = next(a for a in await ed.actions(uri, start_line(text)) if a.title.startswith("Show diff"))
        answer = await ed.command(show.command)
        assert answer["status"] == "written" and ed.diffs == []
        [shown] = ed.client.shown_documents
        diff = Path(answer["path"]).read_text()
        assert shown.uri.endswith(".diff") and shown.uri.startswith("file://")
        lines = diff.splitlines()
        assert any(line.startswith("-") and "for (int j = 0; j <= i; j++)" in line for line in lines)
        assert any(line.startswith("+") and "s += x[i] * x[i];" in line for line in lines)


async def test_cancel_stops_the_job_and_leaves_no_process(tmp_path: Path) -> None:
    # Long timing runs so that the job is surely busy compiling or timing when cancelled.
    settings = fake_settings(tmp_path, [FAST, FAST_TOO], minTimeMs=2000, repetitions=21)
    async with editor(tmp_path, settings) as ed:
        text = (ed.root / "kernels.c").read_text()
        uri = ed.open("kernels.c")
        pid = (await ed.run("perfalign.report"))["pid"]
        answer = await start_job(ed, uri, start_line(text))
        token = f"perfalign/{answer['job']}"
        await wait_for_processes(ed, pid)
        # While it runs, the action on that function is to cancel it; a second request joins it.
        titles = [a.title for a in await ed.actions(uri, start_line(text))]
        assert "Cancel optimizing sum_squares" in titles and "Optimize this function" not in titles
        joined = await ed.run("perfalign.optimize", {"uri": uri, "function": "sum_squares"})
        assert joined["status"] == "joined" and joined["job"] == answer["job"]
        busy = await ed.run("perfalign.parallelize", {"uri": uri, "function": "sum_squares"})
        assert busy["status"] == "busy"
        ed.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
        done = await ed.wait_finished(timeout=30)
        assert done["status"] == "cancelled"
        assert isinstance(ed.client.progress_reports[token][-1], types.WorkDoneProgressEnd)
        for _ in range(100):
            if not descendants(pid):
                break
            await asyncio.sleep(0.05)
        assert descendants(pid) == []
        # The function is offered again.
        assert "Optimize this function" in [a.title for a in await ed.actions(uri, start_line(text))]


async def wait_for_processes(ed: Editor, pid: int) -> list[int]:
    deadline = asyncio.get_running_loop().time() + 180
    ended = len(ed.finished)
    while not (found := descendants(pid)) and asyncio.get_running_loop().time() < deadline and len(ed.finished) == ended:
        await asyncio.sleep(0.05)
    assert found, f"the job never started a compiler or benchmark: {ed.finished}"
    return found


def alive(pids: list[int]) -> list[int]:
    out = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            out.append(pid)
    return out


async def test_closing_the_document_and_shutting_down_cancel_jobs(tmp_path: Path) -> None:
    settings = fake_settings(tmp_path, [FAST], minTimeMs=2000, repetitions=21)
    async with editor(tmp_path, settings) as ed:
        text = (ed.root / "kernels.c").read_text()
        uri = ed.open("kernels.c")
        pid = (await ed.run("perfalign.report"))["pid"]
        await start_job(ed, uri, start_line(text))
        await wait_for_processes(ed, pid)
        ed.close(uri)
        assert (await ed.wait_finished(1, timeout=30))["status"] == "cancelled"
        for _ in range(100):
            if not descendants(pid):
                break
            await asyncio.sleep(0.05)
        assert descendants(pid) == []
        uri = ed.open("kernels.c")
        await start_job(ed, uri, start_line(text))
        running = await wait_for_processes(ed, pid)
        # Leaving the block shuts the server down while the job runs.
    assert ed.client._server is not None and ed.client._server.returncode is not None
    assert alive(running) == []


def descendants(pid: int) -> list[int]:
    """Live (not zombie) processes below ``pid``."""
    children: dict[int, list[int]] = {}
    states: dict[int, str] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        child = int(stat.parent.name)
        states[child] = fields[0]
        children.setdefault(int(fields[1]), []).append(child)
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if states.get(child) != "Z":
                out.append(child)
            todo.append(child)
    return out


async def test_a_document_edited_mid_job_gets_no_stale_edit(tmp_path: Path) -> None:
    settings = fake_settings(tmp_path, [FAST], repetitions=7, minTimeMs=100)
    async with editor(tmp_path, settings) as ed:
        text = (ed.root / "kernels.c").read_text()
        uri = ed.open("kernels.c")
        await start_job(ed, uri, start_line(text))
        edited = text.replace("return s * kRepeat;", "return s * kRepeat + 1.0;")
        ed.replace_text(uri, edited)
        done = await ed.wait_finished()
        assert done["status"] == "withdrawn", done
        actions = await ed.actions(uri, start_line(edited))
        assert [a.title for a in actions] == ["Optimize this function", "Parallelize with OpenMP"]
        assert any("changed while perfalign was optimizing" in m.message for m in ed.client.messages)
        assert list(ed.client.diagnostics.get(uri, [])) == []


async def test_concurrent_jobs_on_two_files_and_close_dismisses(tmp_path: Path) -> None:
    settings = fake_settings(tmp_path, [FAST], **QUICK)
    async with editor(tmp_path, settings) as ed:
        text = (ed.root / "kernels.c").read_text()
        (ed.root / "other.c").write_text(text)
        first, second = ed.open("kernels.c"), ed.open("other.c")
        one = await start_job(ed, first, start_line(text))
        two = await start_job(ed, second, start_line(text))
        assert one["job"] != two["job"]
        report = await ed.run("perfalign.report")
        assert len(report["jobs"]) in (1, 2)  # the first may already be done on a fast machine
        await ed.wait_finished(2)
        assert {(f["uri"], f["status"]) for f in ed.finished} == {(first, "verified"), (second, "verified")}
        ed.close(second)
        rows = await feedback_rows(tmp_path / "prefs.db", 1)
        assert [r[1] for r in rows] == ["dismissed"]
        other = next(f for f in ed.finished if f["uri"] == second)
        assert rows[0][0] == other["suggestions"][0]["candidateId"]
        assert [a.title for a in await ed.actions(first, start_line(text))][0].startswith("Apply verified rewrite")
        # A client that applies through the command alone: the server sends the edit.
        mine = next(f for f in ed.finished if f["uri"] == first)
        answer = await ed.run("perfalign.apply", {"uri": first, "suggestion": mine["suggestions"][0]["suggestion"]})
        assert answer["status"] == "applied" and len(ed.applied) == 1
        begin, end = function_span(text)
        assert ed.texts[first] == text[:begin] + FAST + text[end:]
        rows = await feedback_rows(tmp_path / "prefs.db", 2)
        assert sorted((r[0], r[1]) for r in rows) == sorted(
            [(other["suggestions"][0]["candidateId"], "dismissed"), (mine["suggestions"][0]["candidateId"], "accepted")]
        )


async def test_a_model_that_fails_to_load_is_reported_and_the_model_reloads_when_it_changes(tmp_path: Path) -> None:
    replies = tmp_path / "replies.json"
    settings = {"backend": "fake", "endpoint": str(replies), "samples": 1, "dbPath": str(tmp_path / "prefs.db"), **QUICK}
    async with editor(tmp_path, settings) as ed:
        text = (ed.root / "kernels.c").read_text()
        uri = ed.open("kernels.c")
        await start_job(ed, uri, start_line(text))
        failed = await ed.wait_finished(1)
        assert failed["status"] == "failed", failed
        assert any(m.type == types.MessageType.Error and "failed" in m.message for m in ed.client.messages)
        assert "Traceback" not in " ".join(m.message for m in ed.client.messages)
        [diagnostic] = ed.client.diagnostics[uri]
        assert diagnostic.code == "failed"
        # The replies file appears: the next job loads it.
        write_replies(replies, [WRONG])
        await start_job(ed, uri, start_line(text))
        none = await ed.wait_finished(2)
        assert none["status"] == "none", none
        [diagnostic] = ed.client.diagnostics[uri]
        assert diagnostic.code == "none" and diagnostic.message.startswith("perfalign: ")
        # It changes on disk: reloaded, not served from the loaded copy.
        write_replies(replies, [FAST])
        await start_job(ed, uri, start_line(text))
        assert (await ed.wait_finished(3))["status"] == "verified"


@pytest.mark.slow
@pytest.mark.alone  # the real model samples on every core
async def test_the_default_model_suggests_through_the_server(tmp_path: Path) -> None:
    settings = {"samples": 2, "dbPath": str(tmp_path / "prefs.db"), **QUICK}
    async with editor(tmp_path, settings) as ed:
        text = (ed.root / "kernels.c").read_text()
        uri = ed.open("kernels.c")
        answer = await start_job(ed, uri, start_line(text))
        done = await ed.wait_finished(timeout=1500)
        assert done["status"] in {"verified", "none"}, done
        # The loaded model's build line: perfalign's build repacks the Q4_K_M file's Q6_K weights.
        report = await ed.run("perfalign.report")
        assert report["llamaBuild"] == f"{llama_lib.installed_build().summary()}; Q6_K weights repacked"
        reports = ed.client.progress_reports[f"perfalign/{answer['job']}"]
        assert any("sampling" in (getattr(r, "message", "") or "") for r in reports)
        if done["status"] == "verified":
            apply = (await ed.actions(uri, start_line(text)))[0]
            assert apply.title.startswith("Apply verified rewrite") and apply.edit is not None


# A rewrite that calls the OpenMP runtime, so it needs <omp.h>, which kernels.c lacks.
# (It runs no parallel region: its timing does not depend on how busy the machine is.)
NEEDS_OMP_H = """#include <omp.h>

double sum_squares(const double *x, int n) {
    double s = 0.0;
    const int chunks = omp_get_max_threads() > 0 ? 1 : 1;
    for (int c = 0; c < chunks; c++) {
        for (int i = 0; i < n; i++) {
            s += x[i] * x[i];
        }
    }
    return s * kRepeat;
}"""


async def test_parallelize_offers_an_openmp_rewrite_with_the_header_it_needs(tmp_path: Path) -> None:
    async with editor(tmp_path, fake_settings(tmp_path, [NEEDS_OMP_H], **QUICK)) as ed:
        text = (ed.root / "kernels.c").read_text()
        uri = ed.open("kernels.c")
        await start_job(ed, uri, start_line(text), title="Parallelize with OpenMP")
        done = await ed.wait_finished()
        assert done["status"] == "verified" and done["mode"] == "openmp", done["summary"]
        actions = await ed.actions(uri, start_line(text), only=["refactor.rewrite.parallelize.openmp"])
        apply = actions[0]
        assert apply.title.startswith("Apply verified rewrite: ") and apply.kind == "refactor.rewrite.parallelize.openmp"
        assert await ed.actions(uri, start_line(text), only=["refactor.rewrite.optimize"]) == [
            a for a in await ed.actions(uri, start_line(text)) if a.title == "Optimize this function"
        ]
        assert apply.edit is not None
        ed.apply(apply.edit)
        begin, end = function_span(text)
        function = NEEDS_OMP_H.split("\n\n", 1)[1]
        expected = text[:begin] + function + text[end:]
        assert ed.texts[uri] == expected.replace("#include <stddef.h>\n", "#include <stddef.h>\n#include <omp.h>\n", 1)


async def test_an_unsaved_buffer_is_optimized_as_the_editor_holds_it(tmp_path: Path) -> None:
    async with editor(tmp_path, fake_settings(tmp_path, [FAST], **QUICK)) as ed:
        text = (ed.root / "kernels.c").read_text()
        uri = ed.open("scratch.c", text)  # never saved: no such file on disk
        assert not (ed.root / "scratch.c").exists()
        await start_job(ed, uri, start_line(text))
        done = await ed.wait_finished()
        assert done["status"] == "verified", done["summary"]
        apply = (await ed.actions(uri, start_line(text)))[0]
        assert apply.edit is not None
        ed.apply(apply.edit)
        begin, end = function_span(text)
        assert ed.texts[uri] == text[:begin] + FAST + text[end:]
