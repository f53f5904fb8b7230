"""Cost of one llama.cpp decode step by batch size: the ceiling of batched sampling.

Decodes steps of B tokens (B sequences, one token each, logits for all) and
reports milliseconds per step and tokens/s, for B = 1, 2, 3, 4, 5, 8, 16, 64.
Batched sampling of 4 candidates can be at most (4 / cost of a 4-token step
in 1-token steps) times faster than sampling them one after another.

    .venv/bin/python benchmarks/llama_step_bench.py [--model NAME] [--threads N] [--extra-buffer-types on|off|auto]
"""
from __future__ import annotations

import argparse
import json
import time

from perfalign.server.backends import create_backend
from perfalign.server.settings import Settings

SIZES = (1, 2, 3, 4, 5, 8, 16, 64)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None)
    parser.add_argument("--threads", type=int, default=0, help="0: the backend's default (every core)")
    parser.add_argument("--extra-buffer-types", choices=["on", "off", "auto"], default="auto")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    options: dict[str, object] = {"n_threads": args.threads} if args.threads else {}
    if args.extra_buffer_types != "auto":
        options["extra_buffer_types"] = args.extra_buffer_types == "on"
    settings = Settings(model=args.model or Settings().model)
    backend = create_backend(settings, options=options)
    lib = backend._lib
    ctx = backend._context(4096, 64)
    lib.llama_set_n_threads(ctx, backend.n_threads, backend.n_threads)
    batch = lib.llama_batch_init(512, 0, 64)
    pos = 0

    def step(size: int) -> None:
        batch.n_tokens = size
        for j in range(size):
            batch.token[j] = 100 + j
            batch.pos[j] = pos
            batch.n_seq_id[j] = 1
            batch.seq_id[j][0] = j
            batch.logits[j] = True
        if lib.llama_decode(ctx, batch) != 0:
            raise SystemExit("llama_decode failed")

    rows = {}
    try:
        for size in SIZES:
            step(size)  # warm-up
            pos += 1
            start = time.perf_counter()
            for _ in range(args.repeats):
                step(size)
                pos += 1
            seconds = (time.perf_counter() - start) / args.repeats
            rows[size] = {"ms_per_step": round(seconds * 1000, 1), "tokens_per_s": round(size / seconds, 1)}
    finally:
        lib.llama_batch_free(batch)
        backend.close()
    ceiling = rows[4]["tokens_per_s"] / rows[1]["tokens_per_s"]
    print(json.dumps({"backend": backend.description, "steps": rows, "batched_4_ceiling": round(ceiling, 2)}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
