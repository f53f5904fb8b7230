"""How long the largest source files perfalign accepts take to parse and to open in ``perfalign serve``.

    .venv/bin/python benchmarks/lsp_large_source_bench.py [--mb 9 12] [--rounds 3] [--json]

For each size, writes a single-file C source of that many megabytes (small
functions, as in an amalgamation, with ``row_sums`` in the middle) and times:
the parser listing every function (median of ``--rounds``, in this process);
a ``textDocument/codeAction`` on the file from disk (not open in the editor),
the server reading and parsing it; and ``didOpen`` of its text followed by a
``codeAction``, as an editor does. The sizes default to SQLite's amalgamation
(9 MB) and perfalign's limit.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsp_bench import Client, initialize

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "cli"))
from test_large_source_cli import amalgamation  # noqa: E402

from perfalign.server import cparse  # noqa: E402
from perfalign.server.files import MAX_SOURCE_BYTES  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, nargs="+", default=[9.0, MAX_SOURCE_BYTES / 1e6], help="sizes, MB")
    parser.add_argument("--rounds", type=int, default=3, help="parses timed per size")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="perfalign-large-source-bench-"))
    root = work / "ws"
    root.mkdir()
    target = (REPO / "examples" / "c" / "row_sums.c").read_text()
    env = {**os.environ, "PERFALIGN_HOME": str(work / "home")}
    Client.configuration = {"dbPath": str(work / "prefs.db")}
    client = Client([str(Path(sys.executable).parent / "perfalign"), "serve"], env)
    initialize(client, root)
    results = []
    for mb in args.mb:
        source = root / f"amalgamation_{mb:g}mb.c"
        # Just under the size asked for: the limit itself must be accepted.
        amalgamation(source, int(mb * 1e6) - 2000, target, 30_000)
        text = source.read_text()
        line = next(i for i, l in enumerate(text.splitlines()) if l.startswith("void row_sums("))
        parses = []
        for _ in range(args.rounds):
            started = time.perf_counter()
            functions = cparse.list_functions(text, "c")
            parses.append(time.perf_counter() - started)
        where = {"line": line + 1, "character": 0}
        params = {"textDocument": {"uri": source.as_uri()}, "range": {"start": where, "end": where},
                  "context": {"diagnostics": []}}
        from_disk, found = client.request("textDocument/codeAction", params)
        if not found:
            raise SystemExit(f"{source.name}: no code action from disk: {found}")
        started = time.perf_counter()
        client.notify("textDocument/didOpen", {"textDocument": {"uri": source.as_uri(), "languageId": "c",
                                                                "version": 1, "text": text}})
        _, found = client.request("textDocument/codeAction", params)
        opened = time.perf_counter() - started
        if not found:
            raise SystemExit(f"{source.name}: no code action once open: {found}")
        client.notify("textDocument/didClose", {"textDocument": {"uri": source.as_uri()}})
        results.append({"bytes": source.stat().st_size, "functions": len(functions),
                        "parse_s": round(statistics.median(parses), 2), "code_action_from_disk_s": round(from_disk, 2),
                        "open_and_code_action_s": round(opened, 2)})
    client.close()
    shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps({"results": results, "load_average": os.getloadavg()[0], "cpus": os.cpu_count()}, indent=2))
    else:
        for r in results:
            print(f"{r['bytes'] / 1e6:5.1f} MB, {r['functions']} functions: parse {r['parse_s']:.2f} s, "
                  f"codeAction from disk {r['code_action_from_disk_s']:.2f} s, "
                  f"didOpen + codeAction {r['open_and_code_action_s']:.2f} s")
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
