"""Reproducibility of `faster`: every candidate verified faster once is verified again, several times.

Run from the repository root:

    .venv/bin/python benchmarks/repro_bench.py [--times 5] [--json]

The candidates are the good ones of ``benchmarks/verify_bench.py`` and the
honest rewrites the verifier's tests expect to be faster. For each, the
verifier is prepared once; a candidate the first verification calls
``faster`` is verified ``--times`` more times, each verification with its own
timing sessions (and fresh worker processes). Target: each stays ``faster``
at least 4 times out of 5, and none is ever ``slower``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

from perfalign.server.cparse import language_for
from perfalign.server.settings import Settings
from perfalign.server.verify import FunctionVerifier

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verify_bench import CASES, SUITE  # noqa: E402

UNROLLED = """void prefix_sums(const double *a, double *out, int n) {
    double s = 0.0;
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        s += a[i]; out[i] = s;
        s += a[i + 1]; out[i + 1] = s;
        s += a[i + 2]; out[i + 2] = s;
        s += a[i + 3]; out[i + 3] = s;
    }
    for (; i < n; i++) { s += a[i]; out[i] = s; }
}
"""


def candidates() -> list[tuple[str, str, str, str, list[tuple[str, str]]]]:
    """(folder, original, function, mode, [(name, code)]) for every good or honest candidate."""
    out = []
    for folder, original, function, mode, names in SUITE:
        good = [(f"{folder}/{n}", (CASES / folder / n).read_text()) for n in names if "good" in n]
        if folder == "prefix":
            good.append(("prefix/unrolled (tests/verify/test_adversary.py)", UNROLLED))
        if good:
            out.append((folder, original, function, mode, good))
    return out


def run(times: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for folder, original, function, mode, good in candidates():
        path = CASES / folder / original
        settings = Settings(threads=2) if mode == "openmp" else Settings()
        with FunctionVerifier(path.read_text(), language_for(path), function, mode=mode, settings=settings,
                              source_path=path) as verifier:
            failure = verifier.prepare()
            if failure is not None:
                raise SystemExit(f"{folder}/{original}:{function}: {failure.status.value}: {failure.detail}")
            for name, code in good:
                first = verifier.verify(code)
                row: dict[str, object] = {"candidate": name, "first": first.status.value, "speedup": first.speedup,
                                          "ci95": first.ci95, "again": {}}
                if first.status.value == "faster":
                    again = Counter(verifier.verify(code).status.value for _ in range(times))
                    row["again"] = dict(again)
                rows.append(row)
                print(json.dumps(row), file=sys.stderr)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--times", type=int, default=5, help="verifications after the first (default 5)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    rows = run(args.times)
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'candidate':50} {'first':16} {'speedup':>8}  again ({args.times} times)")
    for r in rows:
        again = ", ".join(f"{k} {v}" for k, v in sorted(r["again"].items())) or "-"  # type: ignore[union-attr]
        speedup = f"{r['speedup']:.2f}" if r["speedup"] is not None else "-"
        print(f"{r['candidate']:50} {r['first']:16} {speedup:>8}  {again}")
    shown = [r for r in rows if r["first"] == "faster"]
    held = sum(1 for r in shown if r["again"].get("faster", 0) >= args.times - 1)  # type: ignore[union-attr]
    flipped = sum(1 for r in shown if r["again"].get("slower", 0))  # type: ignore[union-attr]
    print(f"{held} of {len(shown)} faster candidates stayed faster at least {args.times - 1} of {args.times} times; "
          f"{flipped} ever slower; {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
