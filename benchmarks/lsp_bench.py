"""Drive ``perfalign serve`` as an editor would and measure what a user feels.

    .venv/bin/python benchmarks/lsp_bench.py                 # the default model
    .venv/bin/python benchmarks/lsp_bench.py --backend fake --replies replies.json

Measures: launch to the ``initialize`` answer (median of several launches);
resident memory after initialize and after the model has loaded;
``textDocument/codeAction`` latency (p50/p99) while a job runs; and the time
from the optimize command to the first "Apply verified rewrite" action (offered
while the job still checks the other candidates) and to the job's end.
Prints a table and, with ``--json``, one JSON document.
"""
from __future__ import annotations

import argparse
import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_FILE = REPO / "tests" / "workspace" / "kernels.c"


class Client:
    """A minimal JSON-RPC client over the server's stdio: no converters in the measured path."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        self.next_id = 0
        self.pending: dict[int, queue.Queue[tuple[float, Any]]] = {}
        self.notifications: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        self.lock = threading.Lock()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        assert self.proc.stdin is not None
        with self.lock:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
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
            now = time.perf_counter()
            if "id" in message and "method" in message:  # a request from the server: answer it
                self._answer(message)
            elif "id" in message:
                box = self.pending.pop(message["id"], None)
                if box is not None:
                    box.put((now, message))
            else:
                self.notifications.put((now, message))

    def _answer(self, message: dict[str, Any]) -> None:
        result: Any = None
        if message["method"] == "workspace/configuration":
            result = [self.configuration for _ in message["params"]["items"]]
        elif message["method"] == "workspace/applyEdit":
            result = {"applied": False}
        self._send({"jsonrpc": "2.0", "id": message["id"], "result": result})

    configuration: dict[str, Any] = {}

    def request(self, method: str, params: Any, timeout: float = 600.0) -> tuple[float, Any]:
        """Send a request; returns (seconds until the answer, result)."""
        self.next_id += 1
        box: queue.Queue[tuple[float, Any]] = queue.Queue()
        self.pending[self.next_id] = box
        sent = time.perf_counter()
        self._send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        answered, message = box.get(timeout=timeout)
        if "error" in message:
            raise RuntimeError(f"{method}: {message['error']}")
        return answered - sent, message.get("result")

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_for(self, method: str, timeout: float) -> tuple[float, dict[str, Any]]:
        deadline = time.perf_counter() + timeout
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"no {method} within {timeout:.0f} s")
            when, message = self.notifications.get(timeout=left)
            if message.get("method") == method:
                return when, message["params"]

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def cpu_s(self) -> float:
        """CPU seconds (user + system) the server has used so far."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def peak_rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def close(self) -> None:
        try:
            self.request("shutdown", None, timeout=60)
            self.notify("exit", None)
            self.proc.wait(timeout=30)
        except Exception:
            self.proc.kill()
            self.proc.wait()


def capabilities() -> dict[str, Any]:
    return {
        "workspace": {"configuration": True, "applyEdit": True, "workspaceEdit": {"documentChanges": True}},
        "window": {"workDoneProgress": True},
        "textDocument": {"codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["refactor"]}}}},
    }


def initialize(client: Client, root: Path) -> float:
    """Seconds from launching the process to the initialize answer."""
    uri = root.as_uri()
    client.request("initialize", {"processId": os.getpid(), "rootUri": uri, "capabilities": capabilities(),
                                  "workspaceFolders": [{"uri": uri, "name": "bench"}]})
    seconds = time.perf_counter() - client.started
    client.notify("initialized", {})
    return seconds


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", type=Path, default=DEFAULT_FILE, help="C/C++ file to open (default: tests/workspace/kernels.c)")
    parser.add_argument("--function", default="sum_squares", help="function to optimize")
    parser.add_argument("--model", default=None, help="model name (default: the server's default model)")
    parser.add_argument("--backend", default=None, help="backend (default: the server's default)")
    parser.add_argument("--replies", type=Path, default=None, help="JSON list of raw replies for --backend fake")
    parser.add_argument("--samples", type=int, default=None)
    parser.add_argument("--setting", action="append", default=[], metavar="KEY=VALUE",
                        help="another server setting (JSON value), e.g. --setting minTimeMs=200")
    parser.add_argument("--launches", type=int, default=5, help="launches for the initialize timing")
    parser.add_argument("--interval-ms", type=float, default=20.0, help="pause between codeAction requests during the job")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds to wait for the job")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)

    perfalign = str(Path(sys.executable).parent / "perfalign")
    work = Path(tempfile.mkdtemp(prefix="perfalign-lsp-bench-"))
    root = work / "ws"
    root.mkdir()
    source = root / args.file.name
    shutil.copy(args.file, source)
    env = {**os.environ, "PERFALIGN_HOME": str(work / "home")}
    settings: dict[str, Any] = {"dbPath": str(work / "prefs.db")}
    if args.model:
        settings["model"] = args.model
    if args.backend:
        settings["backend"] = args.backend
    if args.replies:
        settings["endpoint"] = str(args.replies.resolve())
    if args.samples:
        settings["samples"] = args.samples
    for item in args.setting:
        key, _, value = item.partition("=")
        try:
            settings[key] = json.loads(value)
        except json.JSONDecodeError:
            settings[key] = value
    Client.configuration = settings

    # 1. Launch to initialize answer, several launches.
    launches, cpu = [], []
    for _ in range(args.launches):
        c = Client([perfalign, "serve"], env)
        launches.append(initialize(c, root))
        cpu.append(c.cpu_s())
        c.close()

    # 2. One session: open, list actions, start a job, hammer codeAction while it runs.
    client = Client([perfalign, "serve"], env)
    initialize(client, root)
    text = source.read_text()
    uri = source.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cpp" if source.suffix != ".c" else "c", "version": 1, "text": text}})
    line = next(i for i, l in enumerate(text.splitlines()) if args.function + "(" in l)
    action_params = {"textDocument": {"uri": uri}, "range": {"start": {"line": line + 1, "character": 0}, "end": {"line": line + 1, "character": 0}}, "context": {"diagnostics": []}}
    time.sleep(1.0)  # as an editor would: the user opens a file, then moves the cursor
    idle = [client.request("textDocument/codeAction", action_params)[0] for _ in range(50)]
    rss_idle = client.rss_mb()

    started = time.perf_counter()
    _, answer = client.request("workspace/executeCommand", {"command": "perfalign.optimize", "arguments": [{"uri": uri, "function": args.function}]})
    if not isinstance(answer, dict) or answer.get("status") != "started":
        print(f"the job did not start: {answer}", file=sys.stderr)
        client.close()
        return 1
    busy: list[float] = []
    finished: dict[str, Any] | None = None
    finished_at = float("nan")
    offered_at: float | None = None  # when the first "Apply verified rewrite" action was there
    deadline = started + args.timeout
    while time.perf_counter() < deadline:
        latency, actions = client.request("textDocument/codeAction", action_params)
        busy.append(latency)
        if offered_at is None and any(str(a.get("title", "")).startswith("Apply verified rewrite") for a in actions or []):
            offered_at = time.perf_counter()
        try:
            when, params = client.wait_for("perfalign/jobFinished", timeout=args.interval_ms / 1000)
        except (TimeoutError, queue.Empty):
            continue
        finished, finished_at = params, when
        break
    rss_loaded = client.rss_mb()
    rss_peak = client.peak_rss_mb()
    client.close()

    ms = lambda xs, q: round(percentile(xs, q) * 1000, 2)  # noqa: E731
    results = {
        "initialize_s": {"median": round(statistics.median(launches), 3), "max": round(max(launches), 3), "launches": len(launches),
                         "cpu_median": round(statistics.median(cpu), 3)},
        "load_average": os.getloadavg()[0],
        "code_action_idle_ms": {"p50": ms(idle, 50), "p99": ms(idle, 99), "n": len(idle)},
        "code_action_during_job_ms": {"p50": ms(busy, 50), "p99": ms(busy, 99), "n": len(busy)},
        "rss_mb": {"after_initialize": round(rss_idle, 1), "after_model": round(rss_loaded, 1), "peak": round(rss_peak, 1)},
        "job": {
            "status": finished.get("status") if finished else "timeout",
            "seconds_to_first_offer": round(offered_at - started, 1) if offered_at is not None else None,
            "seconds_to_result": round(finished_at - started, 1) if finished else None,
            "summary": finished.get("summary") if finished else None,
            "suggestions": len(finished.get("suggestions", [])) if finished else 0,
        },
        "settings": settings,
        "cpus": os.cpu_count(),
    }
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"launch -> initialize answer   median {results['initialize_s']['median']} s, max {results['initialize_s']['max']} s "
              f"({len(launches)} launches; {results['initialize_s']['cpu_median']} s of CPU; load average {results['load_average']:.1f})")
        print(f"codeAction, idle              p50 {results['code_action_idle_ms']['p50']} ms, p99 {results['code_action_idle_ms']['p99']} ms")
        print(f"codeAction, during the job    p50 {results['code_action_during_job_ms']['p50']} ms, p99 {results['code_action_during_job_ms']['p99']} ms (n={len(busy)})")
        print(f"RSS                           {results['rss_mb']['after_initialize']} MB after initialize, {results['rss_mb']['after_model']} MB with the model (peak {results['rss_mb']['peak']} MB)")
        print(f"command -> first offer        {results['job']['seconds_to_first_offer']} s")
        print(f"command -> result             {results['job']['seconds_to_result']} s: {results['job']['status']}: {results['job']['summary']}")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
