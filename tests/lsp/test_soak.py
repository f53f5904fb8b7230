"""One server, a few hundred mixed messages: every request answered, descriptors, threads and memory flat.

The messages are what a broken or hostile client sends (malformed headers, wrong types, unknown methods,
a body nested 100,000 deep, a megabyte of parameters, odd URIs, special files, bad command arguments)
between ordinary ones (documents opened, edited and closed, code actions, the report, whose race-detection
probe runs the sandbox each time). The server's own /proc entries are read before and after. It runs
under a hard limit of 200 processes, below the sandbox's own 256, as a shell's ``ulimit -u`` or a
container may set: every command the sandbox starts must still start.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from perfalign.server.verify import archer_available
from tests.lsp.test_bad_input import INVALID_PARAMS, KERNEL, MALFORMED, RawClient, actions_params, titles

ROUNDS = 12


class CountingClient(RawClient):
    """A raw client that counts the messages it writes."""

    sent = 0

    def raw(self, data: bytes) -> None:
        self.sent += 1
        super().raw(data)


def server_figures(pid: int) -> tuple[int, int, int]:
    """Open descriptors, threads and resident memory (kB) of process ``pid``."""
    rss = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
               if line.startswith("VmRSS:"))
    return len(os.listdir(f"/proc/{pid}/fd")), len(os.listdir(f"/proc/{pid}/task")), rss


def one_round(client: CountingClient, root: Path, fifo: Path, n: int) -> list[Any]:
    """Send one round of mixed messages; the ids of the requests among them."""
    uri = (root / "kernel.c").as_uri()
    doc = (root / f"open{n}.c").as_uri()
    ids: list[Any] = []

    def request(method: str, params: Any) -> None:
        ident = f"{n}-{len(ids)}"
        ids.append(ident)
        client.request(ident, method, params)

    def notify(method: str, params: Any) -> None:
        client.message({"jsonrpc": "2.0", "method": method, "params": params})

    for data, _ in MALFORMED.values():
        client.raw(data.replace(b'"bad"', b'"bad%d"' % n))
        if b'"bad"' in data:
            ids.append(f"bad{n}")
    for params in INVALID_PARAMS.values():
        request("textDocument/codeAction", params)
    nested = ("[" * 100_000 + "]" * 100_000)
    body = ('{"jsonrpc": "2.0", "id": "deep%d", "method": "textDocument/hover", "params": %s}' % (n, nested)).encode()
    client.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    ids.append(f"deep{n}")
    request("no/such/method", {"x": 1})
    request("textDocument/codeAction", {**actions_params(uri), "padding": "x" * 1_000_000})
    notify("textDocument/didOpen", {"textDocument": {"uri": doc, "languageId": "c", "version": 1, "text": KERNEL}})
    notify("textDocument/didChange", {"textDocument": {"uri": doc, "version": 2},
                                      "contentChanges": [{"text": KERNEL + "\n"}]})
    request("textDocument/codeAction", actions_params(doc))
    notify("textDocument/didClose", {"textDocument": {"uri": doc}})
    notify("textDocument/didOpen", {"textDocument": {"uri": "weird:%%%", "languageId": "c", "version": 1,
                                                     "text": "int f(void) { return 0; }"}})
    request("textDocument/codeAction", actions_params(fifo.as_uri(), 0))
    request("textDocument/codeAction", actions_params("file:///dev/zero", 0))
    request("workspace/executeCommand", {"command": "perfalign.optimize", "arguments": [{"uri": fifo.as_uri(),
                                                                                          "line": 0}]})
    request("workspace/executeCommand", {"command": "perfalign.optimize", "arguments": [{"uri": uri, "line": "x"}]})
    request("workspace/executeCommand", {"command": "perfalign.showDiff", "arguments": [{"suggestion": 12}]})
    request("workspace/executeCommand", {"command": "perfalign.cancel", "arguments": [{"job": "nope"}]})
    request("workspace/executeCommand", {"command": "perfalign.report", "arguments": [5]})
    request("workspace/executeCommand", {"command": "perfalign.report", "arguments": []})
    request("textDocument/codeAction", actions_params(uri))
    return ids


def test_a_long_hostile_session_answers_everything_and_stays_flat(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "kernel.c").write_text(KERNEL)
    fifo = tmp_path / "pipe.c"
    os.mkfifo(fifo)
    race_detection = "available" if archer_available() else "not available"
    client = CountingClient(tmp_path / "home", prefix=("prlimit", "--nproc=200:200", "--"))
    try:
        client.initialize(root)
        pid = client.proc.pid
        for ident in one_round(client, root, fifo, 0):  # warm up: lazy imports, the thread pool, caches
            client.answer(ident, timeout=60)
        before = server_figures(pid)
        sent = client.sent
        for n in range(1, ROUNDS + 1):
            ids = one_round(client, root, fifo, n)
            for ident in ids:
                answer = client.answer(ident, timeout=60)
                assert "result" in answer or answer["error"]["code"] in (-32600, -32601, -32602), answer
            assert titles(client.answers[ids[-1]]) == ["Optimize this function", "Parallelize with OpenMP"]
            report = client.answers[ids[-2]]["result"]
            assert report["pid"] == pid and report["raceDetection"].startswith(race_detection), report
        # A thread or descriptor of the last request may still be on its way out: a leak stays, that does not.
        deadline = time.monotonic() + 5
        after = server_figures(pid)
        while (after[0] > before[0] or after[1] > before[1]) and time.monotonic() < deadline:
            time.sleep(0.1)
            after = server_figures(pid)
        print(f"soak: {client.sent - sent} messages; descriptors {before[0]} -> {after[0]}, "
              f"threads {before[1]} -> {after[1]}, resident memory {before[2] / 1024:.1f} -> {after[2] / 1024:.1f} MiB")
        assert after[0] <= before[0] and after[1] <= before[1], (before, after)
        assert after[2] - before[2] < 20 * 1024, (before, after)
        assert client.proc.poll() is None
    finally:
        client.close()
    assert not any("Traceback" in line for line in client.stderr_lines())
