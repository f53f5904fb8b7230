"""What the evidence of a `faster` verdict costs: the timings at several sizes, and the compiler-alone check.

Run from the repository root:

    .venv/bin/python benchmarks/evidence_bench.py [--json]

For each original the verifier is prepared once, timing its steps from the
progress messages (the compiler-alone check runs between "timing the original
at -O3 -march=native" and "ready"); then its faster candidate is verified and
the scaling step's own wall time (the verdict's ``scaling.cost_s``) is set
against the candidate's whole verdict time.
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from perfalign.server.cparse import language_for
from perfalign.server.evidence import growth_term
from perfalign.server.settings import Settings
from perfalign.server.verify import FunctionVerifier

CASES = Path(__file__).resolve().parents[1] / "tests" / "cases"

# (folder, original file, function, mode, a candidate the verifier calls faster)
SUITE = [
    ("prefix", "original.c", "prefix_sums", "serial", "good_linear.c"),
    ("scaling", "original.c", "smoothed_sums", "serial", "linear.c"),
    ("matrix", "original.c", "scale_columns", "serial", "good_interchange.c"),
    ("helper", "original.c", "eval_all", "serial", "good_horner.c"),
    ("kinds", "original.c", "count_vowels", "serial", "count_vowels_good.c"),
    ("omp", "original.c", "weighted_sum", "openmp", "good_reduction.c"),
    ("cpp", "original.cpp", "stats::centered_squares", "serial", "good_linear.cpp"),
]


def run_suite() -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for folder, original, function, mode, candidate in SUITE:
        path = CASES / folder / original
        marks: list[tuple[float, str]] = []

        def progress(message: str) -> None:
            marks.append((time.perf_counter(), message))

        start = time.perf_counter()
        with FunctionVerifier(path.read_text(), language_for(path), function, mode=mode, settings=Settings(),
                              source_path=path, progress=progress) as v:
            failure = v.prepare()
            prepare_s = time.perf_counter() - start
            if failure is not None:
                raise SystemExit(f"{folder}/{original}:{function}: {failure.status.value}: {failure.detail}")
            native = [t for t, m in marks if m.startswith("timing the original at -O3 -march=native")]
            ready = [t for t, m in marks if m.startswith("ready:")]
            alone_s = ready[-1] - native[-1] if native and ready else None
            t0 = time.perf_counter()
            verdict = v.verify((CASES / folder / candidate).read_text())
            wall = time.perf_counter() - t0
        scaling = verdict.scaling or {}
        growth = scaling.get("growth") or {}
        rows.append({
            "candidate": f"{folder}/{candidate}", "mode": mode, "status": verdict.status.value,
            "speedup": verdict.speedup, "problem_size": verdict.problem_size, "prepare_s": round(prepare_s, 2),
            "compiler_alone": verdict.compiler_alone,
            "compiler_alone_s": round(alone_s, 2) if alone_s is not None else None,
            "verdict_s": round(wall, 2), "time_s": verdict.phases.get("time"),
            "scaling_s": scaling.get("cost_s"), "sizes": [p["size"] for p in scaling.get("sizes") or []],
            "growth": f"{growth_term(growth.get('baseline'))} -> {growth_term(growth.get('candidate'))}"
            if growth else None,
            "exponents": [growth.get("baseline"), growth.get("candidate")] if growth else None,
        })
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = run_suite()
    if args.json:
        print(json.dumps({"cpus": os.cpu_count(), "load": os.getloadavg(), "rows": rows}, indent=2))
        return
    print(f"{'candidate':34} {'status':8} {'speedup':>8} {'verdict s':>9} {'sizes s':>8} {'share':>6} "
          f"{'alone s':>8}  growth")
    for r in rows:
        share = (f"{100 * r['scaling_s'] / r['verdict_s']:.0f}%" if r["scaling_s"] and r["verdict_s"] else "-")
        print(f"{r['candidate']:34} {r['status']:8} {r['speedup'] or 0:8.2f} {r['verdict_s']:9.2f} "
              f"{r['scaling_s'] or 0:8.2f} {share:>6} {r['compiler_alone_s'] or 0:8.2f}  {r['growth'] or '-'} "
              f"{r['exponents'] or ''} at {r['sizes']}")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
