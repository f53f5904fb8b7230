"""The real server, sent what a broken or hostile client sends: every request is answered and the session goes on.

pytest-lsp cannot send a malformed header, so these tests speak raw bytes over
the server's stdio.
"""
from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

PERFALIGN = str(Path(sys.executable).parent / "perfalign")
KERNEL = "double sum(const double *x, int n) {\n    double s = 0;\n    for (int i = 0; i < n; i++) s += x[i];\n" \
    "    return s;\n}\n"


class RawClient:
    """``perfalign serve`` over stdio, written to byte by byte; answers and notifications collected by a thread."""

    def __init__(self, home: Path, prefix: tuple[str, ...] = ()) -> None:
        env = {**os.environ, "PERFALIGN_HOME": str(home)}
        self.proc = subprocess.Popen([*prefix, PERFALIGN, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.answers: dict[Any, dict[str, Any]] = {}
        self.notes: list[dict[str, Any]] = []
        self.arrived = threading.Condition()
        self.reading = threading.Event()  # cleared: the client stops reading the server's output after one message
        self.reading.set()
        threading.Thread(target=self._read, daemon=True).start()
        self.errors: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            self.reading.wait()
            length = 0
            while True:
                line = out.readline()
                if not line:
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                if line in (b"\r\n", b"\n"):
                    break
            message = json.loads(out.read(length))
            with self.arrived:
                if "id" in message and "method" in message:
                    self.message({"jsonrpc": "2.0", "id": message["id"], "result": None})
                elif "id" in message:
                    self.answers[message["id"]] = message
                else:
                    self.notes.append(message)
                self.arrived.notify_all()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.errors.put(line)

    def raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def message(self, obj: dict[str, Any], length: int | None = None, header: bytes | None = None) -> None:
        body = json.dumps(obj).encode()
        if header is None:
            header = b"Content-Length: %d\r\n\r\n" % (len(body) if length is None else length)
        self.raw(header + body)

    def request(self, ident: Any, method: str, params: Any) -> None:
        self.message({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})

    def answer(self, ident: Any, timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self.arrived:
            while ident not in self.answers:
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise AssertionError(f"no answer to {ident!r} within {timeout} s; notifications: {self.notes}")
                self.arrived.wait(left)
            return self.answers[ident]

    def logged(self, needle: str, timeout: float = 5.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self.arrived:
            while True:
                found = [n for n in self.notes if n.get("method") == "window/logMessage"
                         and needle in n["params"]["message"]]
                if found:
                    return found[0]
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no log message with {needle!r}; notifications: {self.notes}")
                self.arrived.wait(left)

    def stderr_lines(self) -> list[str]:
        lines = []
        while not self.errors.empty():
            lines.append(self.errors.get().decode(errors="replace"))
        return lines

    def initialize(self, root: Path) -> None:
        self.request("init", "initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}})
        assert "result" in self.answer("init", timeout=60)
        self.message({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def close(self) -> None:
        if self.proc.poll() is not None:
            return
        try:
            self.request("bye", "shutdown", None)
            self.answer("bye")
            self.message({"jsonrpc": "2.0", "method": "exit"})
            self.proc.wait(timeout=20)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def client(tmp_path: Path) -> Any:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "kernel.c").write_text(KERNEL)
    c = RawClient(tmp_path / "home")
    c.initialize(root)
    c.root = root  # type: ignore[attr-defined]
    yield c
    c.close()


def actions_params(uri: str, line: int = 2) -> dict[str, Any]:
    where = {"line": line, "character": 0}
    return {"textDocument": {"uri": uri}, "range": {"start": where, "end": where}, "context": {"diagnostics": []}}


def titles(answer: dict[str, Any]) -> list[str]:
    return [a["title"] for a in answer.get("result") or []]


CODE_ACTION = {"jsonrpc": "2.0", "id": "bad", "method": "textDocument/codeAction", "params": {}}

# Each malformed message, then what the server must say about it.
MALFORMED = {
    "length not a number": (b"Content-Length: abc\r\n\r\n" + json.dumps(CODE_ACTION).encode(), "not a number of bytes"),
    "negative length": (b"Content-Length: -5\r\n\r\n" + json.dumps(CODE_ACTION).encode(), "not a number of bytes"),
    "no length": (b"Content-Type: application/vscode-jsonrpc\r\n\r\n" + json.dumps(CODE_ACTION).encode(),
                  "no Content-Length"),
    "body longer than said": (b"Content-Length: 20\r\n\r\n" + json.dumps(CODE_ACTION).encode(), "longer"),
    "body shorter than said": (b"Content-Length: %d\r\n\r\n" % (len(json.dumps(CODE_ACTION)) + 7)
                               + json.dumps(CODE_ACTION).encode(), "shorter"),
    "body not JSON": (b"Content-Length: 9\r\n\r\n{\"id\": 3,", "not the 9 bytes of JSON"),
    "not a header at all": (b"GET / HTTP/1.1\r\n\r\n", "not an LSP message"),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_a_malformed_message_is_answered_and_the_next_request_is_served(client: RawClient, name: str) -> None:
    data, said = MALFORMED[name]
    uri = (client.root / "kernel.c").as_uri()  # type: ignore[attr-defined]
    client.raw(data)
    client.request(7, "textDocument/codeAction", actions_params(uri))
    answer = client.answer(7)
    assert titles(answer) == ["Optimize this function", "Parallelize with OpenMP"], answer
    if b"\"id\"" in data and b"\"bad\"" in data:
        error = client.answer("bad")["error"]
        assert error["code"] == -32600 and said in error["message"], error
    else:
        assert said in client.logged(said)["params"]["message"]
    # The session goes on: a second request after the bad one is answered as well.
    client.request(8, "textDocument/codeAction", actions_params(uri))
    assert titles(client.answer(8)) == ["Optimize this function", "Parallelize with OpenMP"]


def test_a_bad_request_alone_is_answered_without_waiting_for_the_next_message(client: RawClient) -> None:
    client.raw(b"Content-Length: 20\r\n\r\n" + json.dumps(CODE_ACTION).encode())
    assert "longer" in client.answer("bad", timeout=5)["error"]["message"]
    client.raw(b"Content-Length: %d\r\n\r\n" % (len(json.dumps(CODE_ACTION)) + 50) + json.dumps(CODE_ACTION).encode())
    del client.answers["bad"]
    assert "shorter" in client.answer("bad", timeout=5)["error"]["message"]



@pytest.mark.parametrize("method", ["textDocument/codeAction", "textDocument/didOpen"])
def test_a_message_nested_100000_deep_is_answered_and_the_next_request_is_served(client: RawClient,
                                                                               method: str) -> None:
    nested = "[" * 100_000 + "]" * 100_000
    body = ('{"jsonrpc": "2.0", "id": "deep", "method": "%s", "params": %s}' % (method, nested)).encode()
    client.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    error = client.answer("deep")["error"]
    assert error["code"] == -32600 and "nests JSON arrays or objects too deeply" in error["message"], error
    uri = (client.root / "kernel.c").as_uri()  # type: ignore[attr-defined]
    client.request(7, "textDocument/codeAction", actions_params(uri))
    assert titles(client.answer(7)) == ["Optimize this function", "Parallelize with OpenMP"]
    assert client.proc.poll() is None

INVALID_PARAMS = {
    "textDocument is a number": {"textDocument": 5, "range": {"start": {"line": 0, "character": 0},
                                 "end": {"line": 0, "character": 0}}, "context": {"diagnostics": []}},
    "negative position": {"textDocument": {"uri": "file:///x.c"}, "range": {"start": {"line": -1, "character": 0},
                          "end": {"line": 0, "character": -4}}, "context": {"diagnostics": []}},
    "no params": None,
    "params a list": [1, 2],
}


@pytest.mark.parametrize("name", list(INVALID_PARAMS))
def test_invalid_params_get_invalid_params_with_the_reason(client: RawClient, name: str) -> None:
    uri = (client.root / "kernel.c").as_uri()  # type: ignore[attr-defined]
    client.request(1, "textDocument/codeAction", INVALID_PARAMS[name])
    error = client.answer(1)["error"]
    assert error["code"] == -32602, error
    assert error["message"].startswith("invalid params for textDocument/codeAction: "), error
    client.request(2, "textDocument/codeAction", actions_params(uri))
    assert titles(client.answer(2)) == ["Optimize this function", "Parallelize with OpenMP"]
    # One line each on stderr, never a traceback.
    client.close()
    lines = client.stderr_lines()
    assert not any("Traceback" in line for line in lines), lines


def test_a_notification_with_bad_params_is_logged_and_ignored(client: RawClient) -> None:
    client.message({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": 5}})
    assert "textDocument/didOpen" in client.logged("invalid params")["params"]["message"]
    uri = (client.root / "kernel.c").as_uri()  # type: ignore[attr-defined]
    client.request(3, "textDocument/codeAction", actions_params(uri))
    assert titles(client.answer(3)) == ["Optimize this function", "Parallelize with OpenMP"]


# ---------------------------------------------------------------- documents that are not open


def read_bytes_of(pid: int) -> int:
    """Bytes the process has read so far (every read call, from any file)."""
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/PID/io")


def special_files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """Paths that must never be read as source, and what the server must call each."""
    fifo = tmp_path / "pipe.c"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.c"
    folder.mkdir()
    files = {
        "a named pipe": (fifo, "a named pipe"),
        "a folder": (folder, "a folder"),
        "a device": (Path("/dev/zero"), "a device"),
        "a kernel file that blocks": (Path("/proc/kmsg"), "in /proc"),
    }
    return {name: found for name, found in files.items() if found[0].exists()}


@pytest.mark.parametrize("name", ["a named pipe", "a folder", "a device", "a kernel file that blocks"])
def test_a_special_file_is_refused_at_once_and_the_server_goes_on(client: RawClient, tmp_path: Path, name: str) -> None:
    path, kind = special_files(tmp_path)[name]
    started = time.monotonic()
    client.request(1, "textDocument/codeAction", actions_params(path.as_uri(), 0))
    assert client.answer(1, timeout=10)["result"] == []
    assert time.monotonic() - started < 5
    shown = [n["params"]["message"] for n in client.notes if n.get("method") == "window/showMessage"]
    assert any("is not a regular file" in m and kind in m for m in shown), shown
    # The event loop is free: the next request is answered, and shutdown works.
    uri = (client.root / "kernel.c").as_uri()  # type: ignore[attr-defined]
    client.request(2, "textDocument/codeAction", actions_params(uri))
    assert titles(client.answer(2)) == ["Optimize this function", "Parallelize with OpenMP"]
    client.request(3, "workspace/executeCommand", {"command": "perfalign.optimize",
                                                   "arguments": [{"uri": path.as_uri(), "line": 0}]})
    assert "is not a regular file" in client.answer(3, timeout=10)["result"]["message"]


def test_a_huge_sparse_file_is_refused_without_being_read(client: RawClient, tmp_path: Path) -> None:
    huge = tmp_path / "huge.c"
    with huge.open("wb") as fh:
        fh.truncate(6 * 2**30)  # 6 GiB of holes: no disk used
    before = read_bytes_of(client.proc.pid)
    client.request(1, "textDocument/codeAction", actions_params(huge.as_uri(), 0))
    assert client.answer(1, timeout=10)["result"] == []
    assert read_bytes_of(client.proc.pid) - before < 1_000_000
    shown = [n["params"]["message"] for n in client.notes if n.get("method") == "window/showMessage"]
    assert any("6442.5 MB" in m and "up to 12 MB" in m for m in shown), shown


# ---------------------------------------------------------------- settings


def test_out_of_range_settings_and_a_workspace_retention_are_reported_not_applied(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "perfalign.toml").write_text("[perfalign]\nstore_retention_days = 1\nsamples = 3\n")
    c = RawClient(tmp_path / "home")
    try:
        c.request("init", "initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {},
                                         "initializationOptions": {"threads": -3, "runTimeoutS": 0}})
        assert "result" in c.answer("init", timeout=60)
        c.message({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        c.request(1, "workspace/executeCommand", {"command": "perfalign.report", "arguments": []})
        report = c.answer(1)["result"]
        assert report["settings"]["threads"] == 2 and report["settings"]["run_timeout_s"] == 60
        assert report["settings"]["samples"] == 3 and report["settings"]["store_retention_days"] == 365
        errors = " | ".join(report["settingsErrors"])
        assert "setting 'threads' must be a whole number from 1 to 1024, got -3" in errors
        assert "store_retention_days is ignored there" in errors
    finally:
        c.close()



def test_a_client_that_stops_reading_stalls_nothing_for_good(tmp_path: Path) -> None:
    # A thousand answers (far more than a pipe holds) while the client reads nothing: the server waits, it does
    # not die, and every request is answered once the client reads again.
    root = tmp_path / "ws"
    root.mkdir()
    (root / "kernel.c").write_text(KERNEL)
    client = RawClient(tmp_path / "home")
    try:
        client.initialize(root)
        client.reading.clear()
        for k in range(1000):
            client.request(k, "perfalign/noSuchMethod", {"pad": "x" * 64})
        time.sleep(3)
        assert client.proc.poll() is None, "the server died while its output was not read"
        client.reading.set()
        for k in range(1000):
            assert "error" in client.answer(k, timeout=60)
        client.request("after", "textDocument/codeAction", {
            "textDocument": {"uri": (root / "kernel.c").as_uri()},
            "range": {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 0}},
            "context": {"diagnostics": []}})
        assert "result" in client.answer("after", timeout=60)
    finally:
        client.close()
