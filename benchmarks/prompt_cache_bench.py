"""Prompt time with earlier prompts kept in the KV cache, against the last prompt only, side by side.

Two llama.cpp backends on the same model: one keeps ``kept_prompts`` earlier
prompts (the default), one only the last. Both get the prompts of the
examples/ functions in the order of ``optimize_bench.py`` (each in the mode it
was written for, so serial and OpenMP requests alternate), taking turns on each
function. Each request samples a few tokens only: what differs is how much of
the prompt is read again, and how fast decoding is with the kept cells around.

    .venv/bin/python benchmarks/prompt_cache_bench.py [--model NAME] [--kept 2] [--max-tokens 48] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from optimize_bench import OPENMP_EXAMPLES, examples  # noqa: E402

from perfalign.server import cparse  # noqa: E402
from perfalign.server.backends import SamplingParams, create_backend  # noqa: E402
from perfalign.server.optimize import STOP, build_messages  # noqa: E402
from perfalign.server.settings import Settings  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=None)
    parser.add_argument("--kept", type=int, default=2, help="kept_prompts of the first backend")
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)

    settings = Settings(model=args.model or Settings().model)
    backends = {"kept": create_backend(settings, options={"kept_prompts": args.kept}),
                "last": create_backend(settings, options={"kept_prompts": 0})}
    rows = []
    previous = None
    for path, name in examples(None):
        mode = "openmp" if name in OPENMP_EXAMPLES else "serial"
        info = cparse.find_function(path.read_text(), cparse.language_for(path), name=name)
        messages = build_messages(info, mode, settings)
        row: dict[str, object] = {"function": name, "mode": mode, "switch": previous not in (None, mode)}
        previous = mode
        for label, backend in backends.items():
            start = time.perf_counter()
            backend.generate(messages, args.samples, SamplingParams(max_tokens=args.max_tokens, temperature=0.7, top_p=0.95, seed=3, stop=tuple(STOP)))
            stats = backend.last_stats
            row[label] = {"prompt": stats.prompt_tokens, "reused": stats.reused_prompt_tokens,
                          "prompt_s": round(stats.prompt_s, 2), "tok_s": round(stats.tokens_per_s, 1),
                          "wall_s": round(time.perf_counter() - start, 2)}
        print(json.dumps(row), flush=True)
        rows.append(row)
    for backend in backends.values():
        backend.close()

    def summary(label: str, subset: list[dict]) -> dict[str, float]:
        parts = [r[label] for r in subset]
        return {"reused": sum(p["reused"] for p in parts), "prompt_s": round(sum(p["prompt_s"] for p in parts), 1),
                "median_prompt_s": statistics.median(p["prompt_s"] for p in parts),
                "median_tok_s": statistics.median(p["tok_s"] for p in parts)}

    switches = [r for r in rows if r["switch"]]
    report = {"model": settings.model, "requests": len(rows), "switches": len(switches),
              **{label: summary(label, rows) for label in backends},
              "after_a_switch": {label: summary(label, switches) for label in backends} if switches else None,
              "saved_after_a_switch_s": [round(r["last"]["prompt_s"] - r["kept"]["prompt_s"], 2) for r in switches],
              "rows": rows}
    print(json.dumps({k: v for k, v in report.items() if k != "rows"}, indent=2))
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
