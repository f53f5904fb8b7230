"""Identical code against itself: the verdicts and the spread of the speedups the verifier reports.

Run from the repository root:

    .venv/bin/python benchmarks/self_speedup_bench.py [--pareval PATH] [--limit N] [--json OUT]

Every function of ``examples/`` (and, with ``--pareval``, every serial baseline
of ParEval's C++ drivers, ``drivers/cpp/benchmarks/*/*/baseline.hpp`` under the
given folder: a snapshot of SpeedCodeOrg/LLM4PP's ``model_eval/ParEval``, which
this script reads and never copies) is prepared as a user's function would be,
then verified against its own text, built and linked the way candidates are.
Every verdict should be ``not_significant``: the table lists each function's
verdict, speedup and interval, and the summary the median, 1st and 99th
percentiles of the speedups and how many verdicts were not
``not_significant``. The threshold must lie above the 99th percentile.

Run it alone on the machine: it times.
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from pathlib import Path

import numpy as np

from perfalign.server.cparse import language_for, list_functions
from perfalign.server.settings import Settings
from perfalign.server.verify import FunctionVerifier

REPO = Path(__file__).resolve().parents[1]
# ParEval's baselines are headers of the drivers; NO_INLINE, the drivers' own macro, keeps a call out of line
# there (perfalign builds the function in a unit of its own, so it is dropped).
NO_INLINE = re.compile(r"\bNO_INLINE\s+")


def example_functions() -> list[tuple[str, str, str, str]]:
    """(label, source text, language, function) for each function of ``examples/``."""
    out = []
    for path in sorted((REPO / "examples").rglob("*")):
        if path.suffix not in (".c", ".cc", ".cpp"):
            continue
        text = path.read_text()
        language = language_for(path)
        for info in list_functions(text, language):
            out.append((f"examples/{path.relative_to(REPO / 'examples')}:{info.qualified_name}", text, language,
                        info.qualified_name))
    return out


def pareval_functions(root: Path) -> list[tuple[str, str, str, str]]:
    """(label, source text, language, function) for each ParEval serial baseline under ``root``."""
    out = []
    for path in sorted(root.rglob("baseline.hpp")):
        text = NO_INLINE.sub("", path.read_text().replace("#pragma once\n", ""))
        names = [i.qualified_name for i in list_functions(text, "cpp") if re.match(r"correct", i.name)]
        for name in names[:1]:
            out.append((f"pareval/{path.parent.name}:{name}", text, "cpp", name))
    return out


def self_verdict(text: str, language: str, function: str, settings: Settings) -> dict[str, object]:
    started = time.monotonic()
    own = next(i.text for i in list_functions(text, language) if i.qualified_name == function)
    with FunctionVerifier(text, language, function, settings=settings) as verifier:
        failure = verifier.prepare()
        if failure is not None:
            return {"status": "not_drivable", "detail": failure.detail[:160],
                    "wall_s": round(time.monotonic() - started, 1)}
        verdict = verifier.verify(own)
    return {"status": verdict.status.value, "speedup": verdict.speedup, "ci95": verdict.ci95,
            "p_value": verdict.p_value, "sessions": len(verdict.sessions), "detail": verdict.detail[:160],
            "wall_s": round(time.monotonic() - started, 1)}


def summarize(rows: list[dict[str, object]]) -> dict[str, object]:
    timed = [r for r in rows if r["status"] in ("faster", "not_significant", "slower")]
    speedups = np.asarray([float(r["speedup"]) for r in timed]) if timed else np.asarray([1.0])  # type: ignore[arg-type]
    return {
        "functions": len(rows),
        "timed": len(timed),
        "not_drivable": sum(1 for r in rows if r["status"] == "not_drivable"),
        "faster": sum(1 for r in timed if r["status"] == "faster"),
        "slower": sum(1 for r in timed if r["status"] == "slower"),
        "other": sum(1 for r in rows if r["status"] not in ("faster", "not_significant", "slower", "not_drivable")),
        "median": round(float(np.median(speedups)), 4),
        "p1": round(float(np.percentile(speedups, 1)), 4),
        "p99": round(float(np.percentile(speedups, 99)), 4),
        "ci_high_below_1": sum(1 for r in timed if r["ci95"] and r["ci95"][1] < 1.0),  # type: ignore[index]
        "ci_low_above_1": sum(1 for r in timed if r["ci95"] and r["ci95"][0] > 1.0),  # type: ignore[index]
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pareval", type=Path, help="a ParEval folder (LLM4PP's model_eval/ParEval) to read")
    parser.add_argument("--no-examples", action="store_true", help="leave out examples/")
    parser.add_argument("--limit", type=int, default=0, help="at most this many functions of each set")
    parser.add_argument("--json", type=Path, help="write the rows and the summary here")
    args = parser.parse_args()
    sets: dict[str, list[tuple[str, str, str, str]]] = {}
    if not args.no_examples:
        sets["examples"] = example_functions()
    if args.pareval:
        sets["pareval"] = pareval_functions(args.pareval)
    settings = Settings()
    report: dict[str, object] = {}
    for name, functions in sets.items():
        rows = []
        for label, text, language, function in functions[: args.limit or None]:
            row = {"function": label, **self_verdict(text, language, function, settings)}
            rows.append(row)
            ci = row.get("ci95") or ("", "")
            print(f"{label:60} {row['status']:16} {row.get('speedup') or '':>8} "
                  f"[{ci[0]}, {ci[1]}] {float(row['wall_s']):.1f} s", flush=True)
        summary = summarize(rows)
        print(f"{name}: {json.dumps(summary)}", flush=True)
        report[name] = {"rows": rows, "summary": summary}
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    walls = [float(r["wall_s"]) for s in report.values() for r in s["rows"]]  # type: ignore[index,union-attr]
    if walls:
        print(f"median wall per function: {statistics.median(walls):.1f} s")


if __name__ == "__main__":
    main()
