"""Wall time from candidate to verdict, split into compile / check / time, for C and C++ candidates.

Run from the repository root:

    .venv/bin/python benchmarks/verify_bench.py [--json]

For each original function the verifier is prepared once (as the optimize
pipeline does); each candidate's verdict time is then measured separately.
Targets: at most 5 s per C candidate and 8 s per C++ candidate on 2 cores.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from perfalign.server.cparse import language_for
from perfalign.server.settings import Settings
from perfalign.server.verify import FunctionVerifier

CASES = Path(__file__).resolve().parents[1] / "tests" / "cases"

# (folder, original file, function, mode, candidates)
SUITE = [
    ("prefix", "original.c", "prefix_sums", "serial",
     ["good_linear.c", "original.c", "wrong_off_by_one.c", "wrong_above_4096.c", "wrong_reads_past_end.c"]),
    ("matrix", "original.c", "scale_columns", "serial", ["good_interchange.c", "wrong_transposed.c"]),
    ("helper", "original.c", "eval_all", "serial", ["good_horner.c", "good_calls_helper.c", "wrong_drops_term.c"]),
    ("kinds", "original.c", "count_vowels", "serial", ["count_vowels_good.c", "count_vowels_wrong.c"]),
    ("omp", "original.c", "weighted_sum", "openmp", ["good_reduction.c", "wrong_racy.c"]),
    ("cpp", "original.cpp", "stats::centered_squares", "serial",
     ["good_linear.cpp", "good_in_namespace.cpp", "wrong_sample_mean.cpp", "wrong_size.cpp"]),
    ("cpp", "original.cpp", "max_abs", "serial", ["max_abs_good.cpp", "max_abs_wrong.cpp"]),
]


def run_suite() -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for folder, original, function, mode, candidates in SUITE:
        path = CASES / folder / original
        language = language_for(path)
        start = time.perf_counter()
        with FunctionVerifier(path.read_text(), language, function, mode=mode, settings=Settings(), source_path=path) as v:
            failure = v.prepare()
            prepare_s = time.perf_counter() - start
            if failure is not None:
                raise SystemExit(f"{folder}/{original}:{function}: {failure.status.value}: {failure.detail}")
            for name in candidates:
                t0 = time.perf_counter()
                verdict = v.verify((CASES / folder / name).read_text())
                wall = time.perf_counter() - t0
                rows.append({
                    "language": language, "function": function, "mode": mode, "candidate": f"{folder}/{name}",
                    "status": verdict.status.value, "wall_s": round(wall, 2), "prepare_s": round(prepare_s, 2),
                    **{k: round(v2, 2) for k, v2 in verdict.phases.items()},
                    "problem_size": verdict.problem_size, "speedup": verdict.speedup,
                })
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    rows = run_suite()
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'candidate':38} {'status':16} {'wall s':>7} {'compile':>8} {'check':>6} {'time':>6} {'prepare':>8}")
    for r in rows:
        print(f"{r['candidate']:38} {r['status']:16} {r['wall_s']:7.2f} {r.get('compile', 0):8.2f} "
              f"{r.get('check', 0):6.2f} {r.get('time', 0):6.2f} {r['prepare_s']:8.2f}")
    for language, target in (("c", 5.0), ("cpp", 8.0)):
        walls = [float(r["wall_s"]) for r in rows if r["language"] == language]  # type: ignore[arg-type]
        if walls:
            print(f"{language}: median {statistics.median(walls):.2f} s, max {max(walls):.2f} s per candidate "
                  f"(target {target:.0f} s); {len(walls)} candidates; {os.cpu_count()} CPUs; "
                  f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
