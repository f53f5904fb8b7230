"""What the compiler alone gives each example, and the model's saved candidates at -O2 and -O3 side by side.

Run from the repository root:

    .venv/bin/python benchmarks/flags_bench.py [--cflags "-O3"] [--json]
    .venv/bin/python benchmarks/flags_bench.py --raw tests/fixtures/raw_outputs [--times 5] [--json OUT]
    .venv/bin/python benchmarks/flags_bench.py --raw benchmarks/reference_rewrites --candidates-only --times 0

Without ``--raw``: for every function of ``examples/`` the verifier prepares
the original (as it does once per function before any candidate) and reports
the problem size it chose, the original's time there, and ``compiler_alone``:
the original's time at ``--cflags`` divided by its time at
``-O3 -march=native``.

With ``--raw DIR`` (raw model outputs named ``<c|cpp>-<function>-<mode>-<index>[-seedN].txt``, one folder per
model, as ``tests/fixtures/raw_outputs`` keeps them): every example is prepared at ``-O2`` and at ``-O3``
(``compiler_alone`` at each), and every saved candidate for it is extracted and verified at both flags. A
candidate called ``faster`` at ``-O3`` is then verified ``--times`` more times there, each time with its own
timing sessions, and the statuses are counted (target: each stays ``faster`` at least 4 of 5 times and none is
ever ``slower``). Each row is printed as JSON on stderr as soon as it is known.
``benchmarks/reference_rewrites`` holds, in the same form, an honest rewrite
for the examples the saved model outputs do not cover.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

from perfalign.server import cparse
from perfalign.server.optimize import extract
from perfalign.server.settings import Settings
from perfalign.server.verify import FunctionVerifier

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*/*.c*"))
FLAGS = {"O2": ["-O2"], "O3": ["-O3"]}


def run(cflags: list[str]) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    settings = Settings(cflags=cflags)
    for path in EXAMPLES:
        text = path.read_text()
        language = cparse.language_for(path)
        name = cparse.list_functions(text, language)[-1].name
        with FunctionVerifier(text, language, name, settings=settings, source_path=path) as verifier:
            failure = verifier.prepare()
            prepared = verifier._prepared
            row: dict[str, object] = {"example": f"{path.parent.name}/{path.name}", "function": name}
            if failure is not None or prepared is None:
                row["failure"] = failure.detail if failure is not None else "project path"
            else:
                row.update(problem_size=prepared.problem_size, baseline_ms=round(prepared.baseline_ms, 3),
                           compiler_alone=prepared.compiler_alone)
            rows.append(row)
    return rows


def saved_candidates(raw_dir: Path) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(example, mode) → [(saved output's name, extracted code)] for the outputs that hold a candidate."""
    out: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for raw in sorted(raw_dir.glob("*/*.txt")):
        language_dir, rest = raw.stem.split("-", 1)
        name, mode = rest.split("-seed")[0].rsplit("-", 1)[0].rsplit("-", 1)
        source = next(p for p in EXAMPLES if p.parent.name == language_dir and p.stem == name)
        text = source.read_text()
        info = cparse.find_function(text, cparse.language_for(source), name=name)
        found = extract(raw.read_text(), info, original_source=text)
        if found.candidate is not None:
            key = (f"{source.parent.name}/{source.name}", mode)
            out.setdefault(key, []).append((f"{raw.parent.name}/{raw.stem}", found.candidate.code))
    return out


def _brief(verdict: object) -> dict[str, object]:
    return {"status": verdict.status.value, "speedup": verdict.speedup, "ci95": verdict.ci95,  # type: ignore[attr-defined]
            "problem_size": verdict.problem_size}  # type: ignore[attr-defined]


def run_saved(raw_dir: Path, times: int, candidates_only: bool = False, only: list[str] | None = None,
              levels: list[str] | None = None) -> list[dict[str, object]]:
    """One row per example: compiler_alone at -O2 and -O3, and each saved candidate's verdicts at both.

    ``only`` keeps the saved candidates whose name contains one of its words; ``levels`` the flags (O2, O3).
    """
    saved = saved_candidates(raw_dir)
    if only:
        saved = {key: kept for key, found in saved.items()
                 if (kept := [(n, c) for n, c in found if any(word in n for word in only)])}
    rows: list[dict[str, object]] = []
    for path in EXAMPLES:
        example = f"{path.parent.name}/{path.name}"
        if candidates_only and not any(ex == example for ex, _ in saved):
            continue
        text = path.read_text()
        language = cparse.language_for(path)
        name = cparse.list_functions(text, language)[-1].name
        modes = sorted({mode for (ex, mode) in saved if ex == example}) or ["serial"]
        for mode in modes:
            row: dict[str, object] = {"example": example, "function": name, "mode": mode, "candidates": {}}
            for label, cflags in FLAGS.items():
                if levels and label not in levels:
                    continue
                settings = Settings(cflags=cflags, threads=2) if mode == "openmp" else Settings(cflags=cflags)
                with FunctionVerifier(text, language, name, mode=mode, settings=settings,
                                      source_path=path) as verifier:
                    failure = verifier.prepare()
                    prepared = verifier._prepared
                    if failure is not None or prepared is None:
                        row[label] = {"failure": failure.detail if failure is not None else "project path"}
                        continue
                    row[label] = {"problem_size": prepared.problem_size,
                                  "baseline_ms": round(prepared.baseline_ms, 3),
                                  "compiler_alone": prepared.compiler_alone}
                    for candidate, code in saved.get((example, mode), []):
                        entry = row["candidates"].setdefault(candidate, {})  # type: ignore[union-attr]
                        verdict = verifier.verify(code)
                        entry[label] = _brief(verdict)
                        if label == "O3" and verdict.status.value == "faster" and times:
                            again_verdicts = [verifier.verify(code) for _ in range(times)]
                            entry["again_O3"] = dict(Counter(v.status.value for v in again_verdicts))
                            entry["again_O3_detail"] = [v.detail[:300] for v in again_verdicts
                                                        if v.status.value != "faster"]
                        print(json.dumps({"example": example, "candidate": candidate, label: entry[label],
                                          "again_O3": entry.get("again_O3")}), file=sys.stderr, flush=True)
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    return rows


def _x(value: object) -> str:
    return f"{value:.2f}x" if isinstance(value, (int, float)) else "-"


def print_saved(rows: list[dict[str, object]], times: int) -> None:
    print(f"{'example':26} {'candidate':42} {'-O2':>22} {'-O3':>22} {'alone -O2':>9} {'alone -O3':>9}  again")
    shown = held = flipped = 0
    for row in rows:
        alone = [_x(row.get(label, {}).get("compiler_alone")) for label in FLAGS]  # type: ignore[union-attr]
        candidates = row["candidates"] or {"(no saved candidate)": {}}  # type: ignore[operator]
        for candidate, entry in candidates.items():  # type: ignore[union-attr]
            cells = []
            for label in FLAGS:
                verdict = entry.get(label)
                cells.append(f"{verdict['status']} {_x(verdict['speedup'])}" if verdict else "-")
            again = entry.get("again_O3")
            if again is not None:
                shown += 1
                held += again.get("faster", 0) >= times - 1
                flipped += bool(again.get("slower", 0))
            again_text = ", ".join(f"{k} {v}" for k, v in sorted(again.items())) if again else "-"
            print(f"{row['example']:26} {candidate:42} {cells[0]:>22} {cells[1]:>22} {alone[0]:>9} {alone[1]:>9}  "
                  f"{again_text}")
    if times:
        print(f"{held} of {shown} candidates faster at -O3 stayed faster at least {times - 1} of {times} times; "
              f"{flipped} ever slower; {os.cpu_count()} CPUs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cflags", default="-O3", help="the flags to compare against -O3 -march=native")
    parser.add_argument("--raw", type=Path, default=None, help="a folder of saved model outputs, one folder per model")
    parser.add_argument("--times", type=int, default=5, help="with --raw: re-verifications of a faster (default 5)")
    parser.add_argument("--only", default="", help="with --raw: comma-separated words; candidates named so only")
    parser.add_argument("--levels", default="O2,O3", help="with --raw: which of O2, O3 (default both)")
    parser.add_argument("--candidates-only", action="store_true",
                        help="with --raw: only the examples that have a saved candidate")
    parser.add_argument("--json", nargs="?", const="-", default=None, help="print the rows as JSON (or write to FILE)")
    args = parser.parse_args()
    rows = run_saved(args.raw, args.times, args.candidates_only,
                     [w for w in args.only.split(",") if w], args.levels.split(",")) if args.raw is not None else run(args.cflags.split())
    if args.json is not None:
        document = json.dumps(rows, indent=1)
        if args.json == "-":
            print(document)
            return
        Path(args.json).write_text(document)
    if args.raw is not None:
        print_saved(rows, args.times)
        return
    print(f"{'example':28} {'size':>10} {'original ms':>12} {'compiler alone':>15}")
    for r in rows:
        if "failure" in r:
            print(f"{r['example']:28} {r['failure']}")
            continue
        alone = f"{r['compiler_alone']:.2f}x" if r["compiler_alone"] is not None else "-"
        print(f"{r['example']:28} {r['problem_size']:>10} {r['baseline_ms']:>12} {alone:>15}")


if __name__ == "__main__":
    main()
