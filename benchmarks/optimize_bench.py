"""Benchmark the optimize pipeline on examples/ with a real model.

Measures, per example: time to the first verified (``faster``) suggestion and
to the end, the outcome and the best speedup; overall: the share of functions
with a faster suggestion, the geometric-mean speedup of the suggestions shown,
peak memory (RSS) of the process, and tokens/s of batched versus sequential
sampling of 4 candidates for the same prompt, side by side in one run.

``--rounds off,on`` runs every example with the feedback rounds switched off
(``feedback_rounds = 0``) and on (the default settings), one after the other,
and reports both side by side: per round, the share of candidates that compiled
and that were correct; the share of compile errors among the final candidates
(those no later round answered); the share of functions with a verified
suggestion; the median times to the first verified suggestion and to the end.
With rounds on, each job's first round is also reported on its own
(``rounds_on_first_round``): it is exactly the job that rounds off would have
run on the same samples (the first round is the same code with the same
prompt and seed), ending when the first round ended, so ``--rounds on`` alone
gives a paired comparison at half the cost. Every row keeps its verdicts in
full (``verdicts``: the timing sessions with their sizes, the phases), so a
surprising verdict can be explained after the run.

    .venv/bin/python benchmarks/optimize_bench.py [--model NAME] [--samples 4] [--only row_sums,matmul]
        [--mode auto|serial|openmp|both] [--rounds off,on] [--set KEY=VALUE ...] [--save-raw DIR] [--json out.json]
        [--tokens-only | --no-tokens] [--option KEY=VALUE ...]

``--option`` passes backend options (``lookahead=0``, ``n_threads=1``, ...).
The token measurement runs twice: with the backend's options as given and with
prompt lookup off (``lookahead=0``), so batching alone is measured too (batched
steps are then still filled to 4 tokens with padding, which is reported).
"""
from __future__ import annotations

import argparse
import json
import math
import resource
import sys
import time
from pathlib import Path

from perfalign.server import cparse
from perfalign.server.backends import SamplingParams, create_backend
from perfalign.server.events import CandidateGenerated, Finished, Progress, VerdictReady
from perfalign.server.optimize import STOP, OptimizeRequest, build_messages, run_optimize
from perfalign.server.settings import Settings

REPO = Path(__file__).resolve().parents[1]
OPENMP_EXAMPLES = {"saxpy", "mandelbrot", "count_in_range", "pair_energy", "vector_norm", "dot_checked", "blur_1d", "heat_3d"}


def examples(only: set[str] | None) -> list[tuple[Path, str]]:
    out = []
    for path in sorted((REPO / "examples").glob("*/*.c*")):
        language = cparse.language_for(path)
        name = cparse.list_functions(path.read_text(), language)[-1].name
        if only is None or name in only:
            out.append((path, name))
    return out


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def tokens_per_s(backend, settings: Settings, path: Path, name: str, max_tokens: int) -> dict[str, float]:
    """Batched and sequential sampling of 4 candidates of the same prompt, same seeds.

    Sequential reads the prompt once too (as llama-cpp-python's prefix cache
    would), then runs the 4 sequences one after another. Nothing is verified
    here, so both keep every core they start with; neither reuses a cached prompt.
    """
    text = path.read_text()
    info = cparse.find_function(text, cparse.language_for(path), name=name)
    messages = build_messages(info, "serial", settings)
    result: dict[str, float] = {}
    for label, batched in (("sequential", False), ("batched", True)):
        backend.batched = batched
        if hasattr(backend, "clear_prompt_cache"):
            backend.clear_prompt_cache()
        start = time.perf_counter()
        backend.generate(messages, 4, SamplingParams(max_tokens=max_tokens, temperature=0.7, top_p=0.95, seed=7, stop=tuple(STOP)))
        wall = time.perf_counter() - start
        stats = backend.last_stats
        result[f"{label}_tokens"] = stats.generated_tokens
        result[f"{label}_steps"] = stats.steps
        result[f"{label}_drafted"] = stats.drafted_tokens
        result[f"{label}_accepted"] = stats.accepted_tokens
        result[f"{label}_padded"] = stats.padded_tokens
        result[f"{label}_step_sizes"] = {str(k): v for k, v in sorted(stats.step_sizes.items())}
        result[f"{label}_tok_s"] = round(stats.tokens_per_s, 2)
        result[f"{label}_wall_s"] = round(wall, 2)
        result[f"{label}_end_to_end_tok_s"] = round(stats.generated_tokens / wall, 2)
    backend.batched = True
    result["ratio"] = round(result["batched_tok_s"] / max(result["sequential_tok_s"], 1e-9), 2)
    result["end_to_end_ratio"] = round(result["batched_end_to_end_tok_s"] / max(result["sequential_end_to_end_tok_s"], 1e-9), 2)
    return result


COMPILED = {"faster", "not_significant", "slower", "incorrect", "crash", "timeout"}
CORRECT = {"faster", "not_significant", "slower"}


def summarize_rows(rows: list[dict]) -> dict[str, object]:
    """The side-by-side numbers of one setting of the feedback rounds."""
    speedups = [r["best_speedup"] for r in rows if r["best_speedup"]]
    firsts = [r["first_verified_s"] for r in rows if r["first_verified_s"]]
    per_round: dict[int, list[str]] = {}
    for r in rows:
        for number, status, _ in r["by_round"]:
            per_round.setdefault(number, []).append(status)
    final = [s for r in rows for s in r["final_statuses"]]
    return {
        "functions": len(rows),
        "with_faster": len(speedups),
        "share_faster": round(len(speedups) / max(len(rows), 1), 3),
        "geomean_speedup": round(math.exp(sum(math.log(s) for s in speedups) / len(speedups)), 3) if speedups else None,
        "median_first_verified_s": median(firsts),
        "median_total_s": median([r["total_s"] for r in rows]),
        "rounds": {str(k): {"candidates": len(v), "compiled": round(sum(s in COMPILED for s in v) / len(v), 3),
                            "correct": round(sum(s in CORRECT for s in v) / len(v), 3)}
                   for k, v in sorted(per_round.items())},
        "final_candidates": len(final),
        "final_compile_error_share": round(sum(s == "compile_error" for s in final) / max(len(final), 1), 3),
    }


def first_round(row: dict) -> dict:
    """The row of a job with rounds on as rounds off would have ended it: its first round alone."""
    first = [status for number, status, _ in row["by_round"] if number == 1]
    best = row["best_speedup"] if row["round1_first_verified_s"] else None
    return {**row, "by_round": [[1, s, None] for s in first], "final_statuses": first, "statuses": first,
            "best_speedup": best, "first_verified_s": row["round1_first_verified_s"], "total_s": row["round1_end_s"]}


def median(values: list[float]) -> float | None:
    values = sorted(values)
    if not values:
        return None
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else round((values[mid - 1] + values[mid]) / 2, 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None)
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--only", default=None, help="comma-separated function names")
    parser.add_argument("--mode", default="auto", choices=["auto", "serial", "openmp", "both"],
                        help="auto: openmp for the examples written to be parallelized, serial for the rest")
    parser.add_argument("--max-tokens", type=int, default=768)
    parser.add_argument("--save-raw", type=Path, default=None, help="folder for the raw model outputs")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--tokens-only", action="store_true", help="only the batched vs sequential measurement")
    parser.add_argument("--no-tokens", action="store_true", help="skip the batched vs sequential measurement")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a backend option")
    parser.add_argument("--rounds", default="on", help="feedback rounds: on, off, or off,on for both side by side")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a setting for every job (job_budget_s=120, ...), as in perfalign.toml")
    args = parser.parse_args(argv)
    options = {k: json.loads(v) for k, v in (o.split("=", 1) for o in args.option)}

    settings = Settings(model=args.model or Settings().model)
    settings = settings.with_values(**{k: json.loads(v) for k, v in (o.split("=", 1) for o in args.set)})
    t0 = time.perf_counter()
    backend = create_backend(settings, options=options)
    load_s = time.perf_counter() - t0
    print(f"model {settings.model} loaded in {load_s:.1f} s; {backend.description}", flush=True)
    report: dict[str, object] = {"model": settings.model, "samples": args.samples, "load_s": round(load_s, 2),
                                 "settings": args.set,
                                 "options": options, "backend": backend.description}

    rows = []
    settings_by_rounds = {"on": settings, "off": settings.with_values(feedback_rounds=0)}
    rounds_list = [r.strip() for r in args.rounds.split(",") if r.strip()]
    if not rounds_list or any(r not in settings_by_rounds for r in rounds_list):
        parser.error("--rounds takes on, off or off,on")
    if not args.tokens_only:
        only = set(args.only.split(",")) if args.only else None
        for path, name in examples(only):
            if args.mode == "auto":
                modes = ["openmp" if name in OPENMP_EXAMPLES else "serial"]
            else:
                modes = ["serial", "openmp"] if args.mode == "both" else [args.mode]
            for mode, rounds in ((m, r) for m in modes for r in rounds_list):
                settings = settings_by_rounds[rounds]
                start = time.perf_counter()
                first_verified = first_candidate = round1_end = None
                first_verified_round1 = None
                finished: Finished | None = None
                request = OptimizeRequest(path=path, function=name, mode=mode, samples=args.samples,
                                          max_tokens=args.max_tokens, seed=args.seed)
                for event in run_optimize(request, settings, backend=backend):
                    if isinstance(event, CandidateGenerated) and first_candidate is None:
                        first_candidate = time.perf_counter() - start
                    if isinstance(event, VerdictReady) and event.candidate.verdict.verified and first_verified is None:
                        first_verified = time.perf_counter() - start
                        if event.candidate.round == 1:
                            first_verified_round1 = first_verified
                    if isinstance(event, Progress) and event.message.startswith("round 2:") and round1_end is None:
                        round1_end = time.perf_counter() - start
                    if isinstance(event, Finished):
                        finished = event
                total = time.perf_counter() - start
                assert finished is not None
                best = finished.suggestions[0].verdict.speedup if finished.suggestions else None
                answered = {c.parent for c in finished.candidates if c.parent is not None}
                row = {
                    "function": name, "mode": mode, "rounds": rounds, "outcome": finished.outcome,
                    "statuses": [c.verdict.status.value for c in finished.candidates],
                    "by_round": [[c.round, c.verdict.status.value, c.feedback] for c in finished.candidates],
                    "final_statuses": [c.verdict.status.value for c in finished.candidates if c.index not in answered],
                    "best_speedup": best, "first_candidate_s": round(first_candidate, 1) if first_candidate else None,
                    "first_verified_s": round(first_verified, 1) if first_verified else None,
                    "total_s": round(total, 1), "summary": finished.summary,
                    "round1_end_s": round(round1_end if round1_end is not None else total, 1),
                    "round1_first_verified_s": round(first_verified_round1, 1) if first_verified_round1 else None,
                    # each verdict in full (its timing sessions, sizes and phases), to explain a run afterwards
                    "verdicts": [c.verdict.to_dict() for c in finished.candidates],
                }
                stats = getattr(backend, "last_stats", None)
                if stats is not None:
                    row["prompt"] = {"tokens": stats.prompt_tokens, "reused": stats.reused_prompt_tokens,
                                     "s": round(stats.prompt_s, 2)}
                rows.append(row)
                print(json.dumps(row), flush=True)
                if args.save_raw is not None:
                    folder = args.save_raw / settings.model
                    folder.mkdir(parents=True, exist_ok=True)
                    for c in finished.candidates:
                        stem = f"{path.parent.name}-{name}-{mode}-{rounds}-{c.index}"
                        (folder / f"{stem}.txt").write_text(c.raw_output)
        for rounds in rounds_list:
            report[f"rounds_{rounds}"] = summarize_rows([r for r in rows if r["rounds"] == rounds])
        if "on" in rounds_list:
            report["rounds_on_first_round"] = summarize_rows([first_round(r) for r in rows if r["rounds"] == "on"])
        report["rows"] = rows
    if hasattr(backend, "last_stats") and not args.no_tokens:
        path, name = examples({"row_sums"})[0]
        report["tokens"] = tokens_per_s(backend, settings, path, name, max_tokens=256)
        print("tokens:", json.dumps(report["tokens"]), flush=True)
        if getattr(backend, "options", None) is not None and backend.options.lookahead:
            lookahead, backend.options.lookahead = backend.options.lookahead, 0
            report["tokens_without_drafts"] = tokens_per_s(backend, settings, path, name, max_tokens=256)
            backend.options.lookahead = lookahead
            print("tokens without drafts:", json.dumps(report["tokens_without_drafts"]), flush=True)
    report["peak_rss_mb"] = round(peak_rss_mb(), 1)
    backend.close()
    summary = {k: v for k, v in report.items() if k != "rows"}
    print(json.dumps(summary, indent=2))
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
