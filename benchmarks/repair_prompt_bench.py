"""A feedback round's prompt time when the first round's prompt is still in the KV cache, against reading it all.

A repair round's conversations (the first turn, the model's reply, the
feedback) are longer than the first round's prompt, so the backend builds a
larger context for them; the first round's prompt moves into it. For each
function: a first round of ``--samples`` candidates, then one repair turn per
candidate read twice by the same backend, first as a feedback round reads it
(after the first round) and then with the cache cleared (every token read, as
before the prompt moved with the context). The sampling settings are the
defaults of a job; the turns are sampled greedily, so both readings draw the
same tokens.

    .venv/bin/python benchmarks/repair_prompt_bench.py [--model NAME] [--functions normalize_rows,row_sums] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from optimize_bench import OPENMP_EXAMPLES, examples  # noqa: E402

from perfalign.server import cparse  # noqa: E402
from perfalign.server.backends import SamplingParams, create_backend  # noqa: E402
from perfalign.server.optimize import STOP, build_messages  # noqa: E402
from perfalign.server.optimize._pipeline import DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE, DEFAULT_TOP_P  # noqa: E402
from perfalign.server.settings import Settings  # noqa: E402

# A repair turn's feedback, of the length and kind a wrong result gets.
FEEDBACK = ("Your version compiles but gives a different result from the original: 'out'[1] is -inf, the original "
            "gives -0.98322462824503898 (n=2, special inputs). The inputs were: n = 2, a = {-inf, 1.5, 0.25, "
            "-2.0}. Write the whole function again, corrected, and keep it faster than the original. Reply with "
            "one C code block that defines the function with the same signature.")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=None)
    parser.add_argument("--functions", default="normalize_rows,row_sums")
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)

    settings = Settings(model=args.model or Settings().model)
    backend = create_backend(settings)
    wanted = args.functions.split(",")
    # A job's default sampling settings.
    first = SamplingParams(max_tokens=DEFAULT_MAX_TOKENS, temperature=DEFAULT_TEMPERATURE, top_p=DEFAULT_TOP_P, seed=1,
                           stop=tuple(STOP))
    greedy = SamplingParams(max_tokens=DEFAULT_MAX_TOKENS, temperature=0.0, top_p=DEFAULT_TOP_P, seed=1,
                            stop=tuple(STOP))
    rows = []
    try:
        for path, name in examples(None):
            if name not in wanted:
                continue
            mode = "openmp" if name in OPENMP_EXAMPLES else "serial"
            info = cparse.find_function(path.read_text(), cparse.language_for(path), name=name)
            messages = build_messages(info, mode, settings)
            backend.clear_prompt_cache()
            replies = backend.generate(messages, args.samples, first)
            turns = [[*messages, {"role": "assistant", "content": reply},
                      {"role": "user", "content": FEEDBACK}] for reply in replies]
            row: dict[str, object] = {"function": name, "mode": mode,
                                      "first_round_prompt": backend.last_stats.prompt_tokens}
            for label in ("after the first round", "cache cleared"):
                if label == "cache cleared":
                    backend.clear_prompt_cache()
                texts = backend.generate_turns(turns, greedy, [7 + i for i in range(len(turns))])
                stats = backend.last_stats
                row[label] = {"prompt_tokens": stats.prompt_tokens, "reused": stats.reused_prompt_tokens,
                              "prompt_s": round(stats.prompt_s, 2), "generate_s": round(stats.generate_s, 2),
                              "texts": [len(t) for t in texts]}
            print(json.dumps(row), flush=True)
            rows.append(row)
    finally:
        backend.close()
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
