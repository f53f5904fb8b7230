"""What a LoRA adapter costs in sampling speed: the base and base + adapter side by side, interleaved.

Both models are loaded at once and sample the same optimize prompts (4
candidates, the product's settings) with the same seeds, in alternating order
from round to round. Reports, per model, the median tokens per second and
milliseconds per decode step, and the paired ratio of the step times (base
over adapter; below 1 means the adapter is slower). The texts differ (the
adapter changes what is written), so the step time, not the job time, is the
like-for-like figure.

    .venv/bin/python benchmarks/adapter_speed_bench.py [--base qwen2.5-coder-1.5b] \
        [--adapter qwen2.5-coder-1.5b-perf] [--rounds 2] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from perfalign.server import cparse
from perfalign.server.backends import SamplingParams, create_backend
from perfalign.server.optimize._prompts import STOP, build_messages
from perfalign.server.settings import Settings

REPO = Path(__file__).resolve().parents[1]
CASES = (("examples/c/row_sums.c", "row_sums", "serial"), ("examples/c/saxpy.c", "saxpy", "openmp"),
         ("examples/c/matmul.c", "matmul", "serial"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="qwen2.5-coder-1.5b")
    parser.add_argument("--adapter", default="qwen2.5-coder-1.5b-perf", help="a registered base + adapter model")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    settings = Settings()
    models = [args.base, args.adapter]
    backends = {name: create_backend(Settings(model=name)) for name in models}
    rows: list[dict[str, object]] = []
    try:
        for round_ in range(args.rounds):
            for path, function, mode in CASES:
                text = (REPO / path).read_text()
                info = cparse.find_function(text, cparse.language_for(Path(path)), name=function)
                messages = build_messages(info, mode, settings)
                params = SamplingParams(max_tokens=768, temperature=0.7, top_p=0.95, seed=100 + round_,
                                        stop=tuple(STOP))
                for name in models if round_ % 2 == 0 else reversed(models):
                    started = time.perf_counter()
                    backends[name].generate(messages, 4, params)
                    stats = backends[name].last_stats
                    rows.append({"model": name, "function": function, "round": round_,
                                 "wall_s": round(time.perf_counter() - started, 2),
                                 "prompt_s": round(stats.prompt_s, 2), "generate_s": round(stats.generate_s, 2),
                                 "tokens": stats.generated_tokens, "steps": stats.steps,
                                 "tokens_per_s": round(stats.tokens_per_s, 2)})
                    print(json.dumps(rows[-1]), flush=True)
    finally:
        for backend in backends.values():
            backend.close()

    def step_ms(row: dict[str, object]) -> float:
        return 1000 * float(row["generate_s"]) / max(int(row["steps"]), 1)  # type: ignore[arg-type]

    summary: dict[str, object] = {}
    for name in models:
        mine = [r for r in rows if r["model"] == name]
        tokens_per_s = statistics.median(float(r["tokens_per_s"]) for r in mine)  # type: ignore[arg-type]
        summary[name] = {"tokens_per_s": tokens_per_s,
                         "ms_per_step": round(statistics.median(step_ms(r) for r in mine), 1)}
    pairs: dict[tuple[object, object], dict[object, dict[str, object]]] = {}
    for r in rows:
        pairs.setdefault((r["function"], r["round"]), {})[r["model"]] = r
    ratios = [step_ms(p[args.base]) / step_ms(p[args.adapter]) for p in pairs.values()]
    summary["step_time_ratio_base_over_adapter"] = {"each": [round(x, 3) for x in ratios],
                                                    "median": round(statistics.median(ratios), 3)}
    print(json.dumps(summary, indent=2))
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "summary": summary}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
