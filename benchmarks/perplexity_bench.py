"""How much two GGUF models differ on the examples' sources: perplexity, top-1 agreement, KL divergence.

Reads every file of examples/ (at most 1,024 tokens each) with both models and
compares their next-token distributions position by position: the perplexity
of each on the real next token, how often their most likely tokens agree, and
the mean KL divergence KL(A || B). Used to weigh a derived model against its
source.

    .venv/bin/python benchmarks/perplexity_bench.py [--a qwen2.5-coder-1.5b] [--b qwen2.5-coder-1.5b-q4k]
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

from perfalign.server import registry

REPO = Path(__file__).resolve().parents[1]


def log_probs(model_path: Path, texts: list[str], threads: int) -> list[tuple[list[int], np.ndarray]]:
    from llama_cpp import Llama  # noqa: PLC0415

    llm = Llama(model_path=str(model_path), n_ctx=2048, n_batch=512, n_threads=threads, logits_all=True, verbose=False)
    out = []
    for text in texts:
        tokens = llm.tokenize(text.encode(), add_bos=False)[:1024]
        llm.reset()
        llm.eval(tokens)
        logits = np.array(llm.scores[: len(tokens)], dtype=np.float64)
        logits -= logits.max(axis=1, keepdims=True)
        out.append((tokens, logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))))
    llm.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", default="qwen2.5-coder-1.5b")
    parser.add_argument("--b", default="qwen2.5-coder-1.5b-q4k")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    texts = [p.read_text() for p in sorted((REPO / "examples").glob("*/*.c*"))]
    paths = [registry.resolve(name).model_path for name in (args.a, args.b)]
    a, b = (log_probs(path, texts, args.threads) for path in paths if path is not None)
    nll_a = nll_b = kl = 0.0
    agree = count = 0
    for (tokens, la), (_, lb) in zip(a, b):
        nxt = np.array(tokens[1:])
        rows = np.arange(len(nxt))
        nll_a -= la[rows, nxt].sum()
        nll_b -= lb[rows, nxt].sum()
        agree += int((la[:-1].argmax(axis=1) == lb[:-1].argmax(axis=1)).sum())
        kl += float((np.exp(la[:-1]) * (la[:-1] - lb[:-1])).sum())
        count += len(nxt)
    report = {"a": args.a, "b": args.b, "files": len(texts), "tokens": count,
              "perplexity_a": round(math.exp(nll_a / count), 4), "perplexity_b": round(math.exp(nll_b / count), 4),
              "top1_agreement": round(agree / count, 4), "kl_a_b": round(kl / count, 5)}
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
