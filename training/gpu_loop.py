"""The whole loop on one GPU in a fixed time budget: self-play, DPO, short GRPO, export, eval, card.

    python -m perfalign.training.gpu_loop --model /models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf --out OUT

Each stage gets a share of ``--budget-s``; a stage that would overrun is
shrunk (fewer steps, samples or functions) or skipped with a note in the card.
Everything lands in ``--out``: self-play data, adapters with their run
records, the GGUF adapter, the evaluation (table, plot, verdicts) and
``MODEL_CARD.md``. Sampling uses transformers on the GPU; verification uses
the CPU cores in parallel.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfalign.server.errors import one_line

from .evaluate import EvalConfig
from .evaluate import card as cardlib
from .export import ExportConfig
from .selfplay import SelfPlayConfig
from .trainers import DPOConfig, GRPOConfig


@dataclass
class Clock:
    budget_s: float
    start: float = field(default_factory=time.monotonic)
    timings: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def left(self) -> float:
        return self.budget_s - (time.monotonic() - self.start)

    def stage(self, name: str, func: Any, *args: Any) -> Any:
        t = time.monotonic()
        log(f"== {name} ({self.left():.0f} s left)")
        try:
            return func(*args)
        except Exception as exc:  # one failed stage is reported in the card; later stages still run
            self.notes.append(f"{name} failed: {type(exc).__name__}: {one_line(exc, limit=250)}")
            log(traceback.format_exc())
            return None
        finally:
            self.timings[name] = time.monotonic() - t
            log(f"== {name} took {self.timings[name]:.0f} s")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="gpu_loop", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True, help="Base model: the served GGUF (dequantized on load) or a Hugging Face folder.")
    p.add_argument("--out", required=True, help="Output folder.")
    p.add_argument("--budget-s", type=float, default=600, help="Seconds for all stages together (default 600).")
    p.add_argument("--name", default="qwen2.5-coder-1.5b-perfalign", help="Name of the trained model in its card.")
    p.add_argument("--samples", type=int, default=8, help="Candidates per function in self-play and evaluation.")
    p.add_argument("--dpo-steps", type=int, default=40)
    p.add_argument("--grpo-steps", type=int, default=8)
    p.add_argument("--max-tokens", type=int, default=384)
    p.add_argument("--verify-workers", type=int, default=max(2, (os.cpu_count() or 4) // 2))
    p.add_argument("--eval-functions", nargs="*", default=[], help="Held-out files or folders (default: the repository's examples/).")
    p.add_argument("--corpus", nargs="*", default=[], help="Self-play corpus (default: the training corpus).")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    clock = Clock(args.budget_s)
    import torch

    from . import evaluate, export, selfplay
    from .modeling import open_sampler
    from .trainers import train_dpo, train_grpo

    log(f"device: {torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'cpu'}; model {args.model}")

    # 1. Self-play with the base model (its sampler is reused for the base half of the evaluation).
    sampler = clock.stage("load base", open_sampler, args.model, "", "transformers")
    if sampler is None:
        cardlib.write(out, cardlib.build(name=args.name, base=args.model, stages=[], timings=clock.timings, notes=clock.notes))
        return 1
    pairs = out / "selfplay" / "pairs.jsonl"
    sp_config = SelfPlayConfig(
        base=args.model, engine="transformers", corpus=args.corpus, output=str(pairs), samples=args.samples,
        max_tokens=args.max_tokens, temperature=0.8, verify_workers=args.verify_workers, repetitions=7, eval_percent=0,
    )
    sp_deadline = time.monotonic() + 0.35 * clock.left()
    sp = clock.stage("self-play", lambda: selfplay.run(sp_config, sampler=sampler, progress=log, deadline=sp_deadline))
    if sp is not None:
        log(sp.summary())

    # 2. DPO on the self-play pairs; 3. GRPO continuing from the DPO adapter.
    stages: list[Path] = []
    adapter = ""
    precision = "bf16" if torch.cuda.is_available() else "fp32"
    if sp is not None and sp.pairs > 0:
        dpo_config = DPOConfig(
            base=args.model, output_dir=str(out / "dpo"), data=[str(pairs)], max_steps=args.dpo_steps, learning_rate=2e-5,
            per_device_batch_size=4, gradient_accumulation_steps=2, max_length=1536, lora_r=16, lora_alpha=32, precision=precision,
        )
        result = clock.stage("dpo", train_dpo, dpo_config)
        if result is not None:
            log(result.summary())
            stages.append(result.adapter_dir)
            adapter = str(result.adapter_dir)
    else:
        clock.notes.append("no DPO pairs from self-play (no function had both a faster and a failed/slower candidate); DPO skipped")
    rl_rows = out / "selfplay" / "rl.jsonl"
    if sp is not None and sp.rl_rows and clock.left() > 300:
        steps = max(2, min(args.grpo_steps, int((clock.left() - 240) / 25)))
        grpo_config = GRPOConfig(
            base=args.model, output_dir=str(out / "grpo"), data=[str(rl_rows)], init_adapter=adapter, max_steps=steps,
            learning_rate=5e-6, per_device_batch_size=2, gradient_accumulation_steps=1, num_generations=8,
            max_completion_length=args.max_tokens, max_length=2048, precision=precision, verify_workers=args.verify_workers,
            repetitions=5,
        )
        result = clock.stage("grpo", train_grpo, grpo_config)
        if result is not None:
            log(result.summary())
            stages.append(result.adapter_dir)
            adapter = str(result.adapter_dir)
    else:
        clock.notes.append("GRPO skipped: not enough time left or no RL prompts")

    # 4. Export the final adapter as GGUF (checked in llama.cpp when it is installed).
    exported: dict[str, Any] = {}
    if adapter:
        check = 3 if has("llama_cpp") else 0
        if not check:
            clock.notes.append("llama-cpp-python absent: the GGUF adapter was written but not checked against PEFT here")
        ex = clock.stage(
            "export", export.main, ExportConfig(
                adapter_dir=adapter, base=args.model, base_gguf=args.model if args.model.endswith(".gguf") else "",
                output=str(out / "adapter.gguf"), check_sequences=check,
            )
        )
        if ex is not None:
            log(ex.summary())
            exported = {"adapter_gguf": str(ex.adapter_gguf), "base_gguf": str(ex.base_gguf), "size_bytes": ex.size_bytes, "check": (ex.card or {}).get("check", {})}

    # 5. Base vs trained on the held-out functions, same prompts and seeds.
    eval_dir = out / "eval"
    if adapter:
        from peft import PeftModel

        def evaluate_both() -> Any:
            samples = args.samples if clock.left() > 200 else max(2, args.samples // 2)
            # Each model costs about what self-play spent per function; keep 60 s for the card.
            per_function = (sp.seconds / max(sp.functions, 1)) * samples / args.samples if sp else 30.0
            functions = max(3, int((clock.left() - 60) / (2 * max(per_function, 1.0))))
            log(f"evaluating {functions} functions, {samples} samples each, per model")
            config = EvalConfig(
                base=args.model, adapter=adapter, engine="transformers", functions=args.eval_functions, samples=samples,
                max_functions=functions,
                ks=[k for k in (1, 2, 4, 8) if k <= samples], max_tokens=args.max_tokens, verify_workers=args.verify_workers,
                repetitions=7, output_dir=str(eval_dir),
            )
            trained = type(sampler)(PeftModel.from_pretrained(sampler.model, adapter).eval(), sampler.tokenizer, "trained")
            base_view = _BaseView(trained)
            return evaluate.run(config, samplers={"base": base_view, "trained": trained}, progress=log)

        ev = clock.stage("eval", evaluate_both)
        if ev is not None:
            log(ev.table)
            (out / "functions-held-out.txt").write_text("\n".join(sorted({r.get("function", "") for r in _rows(eval_dir / "functions.jsonl")})) + "\n")

    # 6. The card.
    card = cardlib.build(name=args.name, base=args.model, stages=stages, export=exported, evaluation_dir=eval_dir, timings=clock.timings, notes=clock.notes)
    path = cardlib.write(out, card, plot="eval/plot.svg" if (eval_dir / "plot.svg").is_file() else None)
    log(f"card: {path}; total {time.monotonic() - clock.start:.0f} s")
    return 0


class _BaseView:
    """The base model through a PEFT wrapper with its adapter switched off (one copy of the weights on the GPU)."""

    def __init__(self, trained: Any) -> None:
        self.trained = trained
        self.name = "base"

    def generate(self, messages: Any, n: int, **kw: Any) -> list[str]:
        with self.trained.model.disable_adapter():
            return self.trained.generate(messages, n, **kw)

    def close(self) -> None:
        pass


def _rows(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


if __name__ == "__main__":
    sys.exit(main())
