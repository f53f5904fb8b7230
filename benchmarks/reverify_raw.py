"""Verdicts of saved model outputs under two perfalign checkouts, side by side.

Run from the repository root:

    .venv/bin/python benchmarks/reverify_raw.py RAW_DIR --tree old=PYTHON:PYTHONPATH --tree new=.venv/bin/python: \
        [--json out.json]

``RAW_DIR`` holds raw model outputs named ``<c|cpp>-<function>-<mode>-<index>[-seedN].txt`` (as
``benchmarks/optimize_bench.py --save-raw`` and ``tests/fixtures/raw_outputs`` keep them), in one folder
per model. Each output is extracted with this checkout's extractor, written to a file, and judged by each
tree's own ``perfalign verify FILE --function NAME --candidate CAND --mode MODE --json``, one tree after
the other for each candidate so that machine load affects both alike. ``PYTHONPATH`` may be empty (the
interpreter's own perfalign). A tree of an older layout can be run from a folder ``perfalign/`` holding
links ``server``, ``training`` and ``models`` to its checkout, given as ``PYTHONPATH``.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from perfalign.server import cparse
from perfalign.server.optimize import extract

REPO = Path(__file__).resolve().parents[1]


def parse_name(stem: str) -> tuple[str, str, str]:
    """``c-row_sums-serial-2-seed2`` → (``c``, ``row_sums``, ``serial``)."""
    language_dir, rest = stem.split("-", 1)
    name_mode = rest.split("-seed")[0].rsplit("-", 1)[0]
    name, mode = name_mode.rsplit("-", 1)
    return language_dir, name, mode


def verify(python: str, pythonpath: str, source: Path, name: str, candidate: Path, mode: str) -> dict[str, object]:
    start = time.perf_counter()
    run = subprocess.run(
        [python, "-c", "from perfalign.server.cli import main; main()", "verify", str(source), "--function", name,
         "--candidate", str(candidate), "--mode", mode, "--json"],
        capture_output=True, text=True, check=False,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": pythonpath, "HOME": str(Path.home())},
    )
    seconds = round(time.perf_counter() - start, 2)
    try:
        verdict = json.loads(run.stdout)
    except json.JSONDecodeError:
        return {"status": "no verdict", "detail": (run.stderr or run.stdout)[-300:], "s": seconds}
    return {"status": verdict.get("status"), "speedup": verdict.get("speedup"), "ci95": verdict.get("ci95"),
            "detail": (verdict.get("detail") or "")[:200], "s": seconds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("raw_dir", type=Path)
    parser.add_argument("--tree", action="append", required=True, help="LABEL=PYTHON:PYTHONPATH")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    trees = {}
    for spec in args.tree:
        label, rest = spec.split("=", 1)
        python, _, pythonpath = rest.partition(":")
        trees[label] = (python, pythonpath)

    rows = []
    with tempfile.TemporaryDirectory(prefix="perfalign-reverify-") as tmp:
        for raw in sorted(args.raw_dir.glob("*/*.txt")):
            language_dir, name, mode = parse_name(raw.stem)
            ext = ".cpp" if language_dir == "cpp" else ".c"
            source = REPO / "examples" / language_dir / f"{name}{ext}"
            text = source.read_text()
            info = cparse.find_function(text, cparse.language_for(source), name=name)
            found = extract(raw.read_text(), info, original_source=text)
            row: dict[str, object] = {"candidate": f"{raw.parent.name}/{raw.stem}", "function": name, "mode": mode}
            if found.candidate is None:
                row["extract"] = found.reason
            else:
                candidate = Path(tmp) / f"{raw.parent.name}-{raw.stem}{ext}"
                candidate.write_text(found.candidate.code)
                for label, (python, pythonpath) in trees.items():
                    row[label] = verify(python, pythonpath, source, name, candidate, mode)
            rows.append(row)
            print(json.dumps(row), flush=True)

    labels = list(trees)
    pairs = Counter(tuple(str(r.get(label, {}).get("status", "not extracted")) for label in labels)  # type: ignore[union-attr]
                    for r in rows)
    print(" → ".join(labels))
    for statuses, count in sorted(pairs.items(), key=lambda kv: -kv[1]):
        print(f"{count:4d}  {' → '.join(statuses)}")
    for label in labels:
        total = sum(float(r[label]["s"]) for r in rows if label in r)  # type: ignore[index]
        print(f"{label}: {total:.1f} s in all")
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
