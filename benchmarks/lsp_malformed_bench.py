"""How fast ``perfalign serve`` answers a valid request that follows a malformed message.

    .venv/bin/python benchmarks/lsp_malformed_bench.py [--rounds 20] [--json]

For each kind of malformed message (a Content-Length that is not a number, a
negative one, none, a body longer or shorter than said, a body that is not
JSON, bytes that are no message, a request whose params nest 100,000 arrays
deep) the client writes the bad message and a valid
``textDocument/codeAction`` request at once, and times the answer to the valid
request; "none" is the same request after a well-formed one. Prints the median
and the largest time of each, in milliseconds. ``--idle N`` first times N
valid requests in a row (the reader's own cost, no malformed input).
"""
from __future__ import annotations

import argparse
import json
import os
import queue
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsp_bench import DEFAULT_FILE, Client, initialize

BAD = {"jsonrpc": "2.0", "id": "bad", "method": "textDocument/codeAction", "params": {}}
BODY = json.dumps(BAD).encode()
DEEP = b'{"jsonrpc": "2.0", "id": "bad", "method": "textDocument/codeAction", "params": %s}' % (
    b"[" * 100_000 + b"]" * 100_000)
MALFORMED = {
    "none (a well-formed message)": b"Content-Length: %d\r\n\r\n" % len(BODY) + BODY,
    "Content-Length: abc": b"Content-Length: abc\r\n\r\n" + BODY,
    "Content-Length: -5": b"Content-Length: -5\r\n\r\n" + BODY,
    "no Content-Length": b"Content-Type: application/vscode-jsonrpc\r\n\r\n" + BODY,
    "body longer than said": b"Content-Length: 20\r\n\r\n" + BODY,
    "body shorter than said": b"Content-Length: %d\r\n\r\n" % (len(BODY) + 7) + BODY,
    "body not JSON": b"Content-Length: 9\r\n\r\n{\"id\": 3,",
    "no header at all": b"GET / HTTP/1.1\r\n\r\n",
    "params nested 100,000 deep": b"Content-Length: %d\r\n\r\n" % len(DEEP) + DEEP,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20, help="valid requests timed after each kind of message")
    parser.add_argument("--idle", type=int, default=0, help="first time this many valid requests in a row")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="perfalign-malformed-bench-"))
    root = work / "ws"
    root.mkdir()
    source = root / DEFAULT_FILE.name
    shutil.copy(DEFAULT_FILE, source)
    env = {**os.environ, "PERFALIGN_HOME": str(work / "home")}
    Client.configuration = {"dbPath": str(work / "prefs.db")}
    client = Client([str(Path(sys.executable).parent / "perfalign"), "serve"], env)
    initialize(client, root)
    text = source.read_text()
    uri = source.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "c", "version": 1, "text": text}})
    line = next(i for i, l in enumerate(text.splitlines()) if "sum_squares(" in l) + 1
    params = {"textDocument": {"uri": uri}, "range": {"start": {"line": line, "character": 0},
              "end": {"line": line, "character": 0}}, "context": {"diagnostics": []}}
    for _ in range(20):
        client.request("textDocument/codeAction", params)  # warm up the parser
    results: dict[str, dict[str, float]] = {}
    if args.idle:
        idle = sorted(client.request("textDocument/codeAction", params)[0] * 1000 for _ in range(args.idle))
        results["idle (valid requests only)"] = {
            "median_ms": round(statistics.median(idle), 2),
            "p99_ms": round(idle[min(len(idle) - 1, round(0.99 * (len(idle) - 1)))], 2),
            "max_ms": round(idle[-1], 2), "n": len(idle),
        }
    for name, data in MALFORMED.items():
        times = []
        for _ in range(args.rounds):
            client.next_id += 1
            ident = client.next_id
            box: queue.Queue[tuple[float, Any]] = queue.Queue()
            client.pending[ident] = box
            body = json.dumps({"jsonrpc": "2.0", "id": ident, "method": "textDocument/codeAction", "params": params})
            with client.lock:
                assert client.proc.stdin is not None
                sent = time.perf_counter()
                client.proc.stdin.write(data + b"Content-Length: %d\r\n\r\n" % len(body) + body.encode())
                client.proc.stdin.flush()
            answered, message = box.get(timeout=30)
            if "error" in message or not message.get("result"):
                raise SystemExit(f"{name}: the valid request got {message}")
            times.append((answered - sent) * 1000)
            time.sleep(0.12)  # let the bad message's own answer go by before the next round
        results[name] = {"median_ms": round(statistics.median(times), 2), "max_ms": round(max(times), 2),
                         "n": len(times)}
    client.close()
    shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps({"results": results, "load_average": os.getloadavg()[0], "cpus": os.cpu_count()}, indent=2))
    else:
        for name, r in results.items():
            p99 = f"   p99 {r['p99_ms']:7.2f} ms" if "p99_ms" in r else ""
            print(f"{name:32} median {r['median_ms']:7.2f} ms{p99}   max {r['max_ms']:7.2f} ms   (n={r['n']})")
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
