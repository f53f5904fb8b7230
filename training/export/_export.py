"""Export a trained PEFT LoRA as a GGUF adapter, prove llama.cpp computes what PEFT computes, register it.

The check loads the base GGUF the server serves with the adapter in
llama-cpp-python and compares per-token log-probabilities with the PEFT model
on a few conversations from the run's own data — prompt *and* answer, as long
as the training's ``max_length`` (a longer one keeps its end, so the answer
tokens that completion-only training changes are always in). Because the
served base is quantized and PEFT runs on dequantized weights, they never
agree exactly; the check therefore compares the adapter's *effect* (log-probs
with minus without it), which cancels most of the quantization error: the
effect in llama.cpp must follow PEFT's with a high correlation and a slope
between 0.9 and 1.1, so an adapter exported at the wrong scale fails.

Optionally the adapter is merged into the base and written as a Q8_0 GGUF;
a merged fine-tune is never re-quantized to 4 bits (that would erase it).
"""
from __future__ import annotations

import contextlib
import importlib.util
import json
import math
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from perfalign.server.errors import PerfalignError

from ..trainers import read_run
from . import _gguf as ggufio
from ._config import ExportConfig

_LOAD_LOCK = threading.Lock()


class ExportError(PerfalignError, RuntimeError):
    """An adapter that cannot be exported or did not pass the check; the message says why."""


@dataclass
class Agreement:
    sequences: int
    tokens: int
    mean_abs_diff: float  # |log p llama.cpp(base+adapter) - log p PEFT|, per token
    base_mean_abs_diff: float  # the same without the adapter: the quantization floor
    adapter_effect: float  # mean |log p PEFT(with) - log p PEFT(without)|
    effect_mean_abs_diff: float  # how far llama.cpp's adapter effect is from PEFT's
    effect_correlation: float = 1.0  # per-token correlation of the two adapter effects
    effect_slope: float = 1.0  # least-squares slope of llama.cpp's effect on PEFT's (1: the same scale)
    answer_tokens: int = 0  # tokens of the sequences that belong to the answers
    max_tokens: int = 0  # the longest sequence allowed (the training's max_length)
    passed: bool = False

    def summary(self) -> str:
        return (
            f"{self.sequences} sequences, {self.tokens} tokens ({self.answer_tokens} of answers): |Δlog p| "
            f"{self.mean_abs_diff:.4f} with the adapter ({self.base_mean_abs_diff:.4f} without); adapter effect "
            f"{self.adapter_effect:.4f}, reproduced within {self.effect_mean_abs_diff:.4f} (correlation "
            f"{self.effect_correlation:.3f}, slope {self.effect_slope:.3f})"
        )


@dataclass
class ExportResult:
    adapter_gguf: Path
    base_gguf: Path
    size_bytes: int
    tensors: int
    agreement: Agreement | None = None
    merged_gguf: Path | None = None
    manifest: Path | None = None
    card: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> str:
        parts = [f"adapter {self.adapter_gguf} ({self.size_bytes / 1e6:.1f} MB, {self.tensors} tensors) on {self.base_gguf.name}"]
        if self.agreement:
            parts.append(("check passed: " if self.agreement.passed else "check FAILED: ") + self.agreement.summary())
        if self.merged_gguf:
            parts.append(f"merged Q8_0 model {self.merged_gguf}")
        if self.manifest:
            parts.append(f"registered: {self.manifest}")
        return "; ".join(parts)


def _base_info(base_gguf: Path) -> tuple[str, int]:
    meta = ggufio.read_metadata(base_gguf)
    arch = str(meta.get("general.architecture", ""))
    blocks = meta.get(f"{arch}.block_count")
    if not arch or blocks is None:
        raise ExportError(f"{base_gguf} does not look like a model GGUF (no architecture or block count)")
    return arch, int(blocks)


def _adapter_scale_alpha(adapter_cfg: dict[str, Any]) -> float:
    """The alpha llama.cpp needs so that alpha / r equals PEFT's scaling."""
    r = float(adapter_cfg["r"])
    alpha = float(adapter_cfg.get("lora_alpha", r))
    if adapter_cfg.get("use_rslora"):
        return alpha * math.sqrt(r)  # PEFT scales by alpha / sqrt(r)
    return alpha


DEFAULT_MAX_TOKENS = 1024  # the trainers' default max_length


def check_data(adapter_dir: Path, tokenizer: Any, count: int, max_tokens: int = 0) -> tuple[list[list[int]], int]:
    """Token ids of up to ``count`` conversations from the run's data (prompt and answer), and their answer tokens.

    ``max_tokens`` (default: the run's ``max_length``) bounds each sequence; a
    longer conversation keeps its last ``max_tokens`` tokens, so its answer is
    always checked.
    """
    from ..data import read_jsonl

    run = read_run(adapter_dir)
    max_tokens = max_tokens or int(run.get("config", {}).get("max_length") or DEFAULT_MAX_TOKENS)
    conversations: list[list[dict[str, str]]] = []
    for source in run.get("data_sources", []):
        if not Path(source).is_file():
            continue
        for row in read_jsonl(Path(source)):
            if "messages" in row:
                conversations.append(row["messages"])
            elif "prompt" in row and isinstance(row["prompt"], list):
                conversations.append(row["prompt"] + list(row.get("chosen") or []))
            if len(conversations) >= count:
                break
        if len(conversations) >= count:
            break
    if not conversations:
        code = "for (int i = 0; i < n; i++) { s += a[i] * b[i]; }"
        conversations = [[{"role": "user", "content": f"Optimize:\n```c\n{code}\n```"}, {"role": "assistant", "content": code}]]
    out = []
    answers = 0
    for messages in conversations[:count]:
        ids = list(tokenizer.apply_chat_template(messages, tokenize=True, return_dict=True)["input_ids"])
        prompt = messages[:-1] if messages and messages[-1].get("role") == "assistant" else messages
        prompt_ids = tokenizer.apply_chat_template(prompt, tokenize=True, return_dict=True, add_generation_prompt=True)
        prompt_len = len(prompt_ids["input_ids"])
        answers += max(0, min(len(ids) - prompt_len, max_tokens))
        out.append(ids[-max_tokens:])
    return out, answers


def check_sequences(adapter_dir: Path, tokenizer: Any, count: int, max_tokens: int = 0) -> list[list[int]]:
    """The sequences of :func:`check_data`."""
    return check_data(adapter_dir, tokenizer, count, max_tokens)[0]


def _torch_logprobs(model: Any, ids: list[int]) -> list[float]:
    import torch

    device = next(model.parameters()).device
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([ids], device=device)).logits[0].float().log_softmax(-1)
    return [float(logits[i, ids[i + 1]]) for i in range(len(ids) - 1)]


@contextlib.contextmanager
def _plain_cpu_buffers() -> Iterator[None]:
    """Load weights without ggml's extra CPU layouts (AMX tiles, repacking).

    Some CPUs and sandboxes report AMX without enabling it, and the process
    then dies of SIGILL; the plain layout computes the same values.
    """
    import llama_cpp.llama as high_level

    low = high_level.llama_cpp
    original = low.llama_model_default_params

    def params():  # type: ignore[no-untyped-def]
        p = original()
        p.use_extra_bufts = False
        return p

    with _LOAD_LOCK:
        low.llama_model_default_params = params
        try:
            yield
        finally:
            low.llama_model_default_params = original


def llama_logprobs(base_gguf: Path, adapter_gguf: Path | None, sequences: list[list[int]], scale: float = 1.0) -> list[list[float]]:
    """Per-token log-probabilities from llama.cpp for each sequence of token ids."""
    import numpy as np
    from llama_cpp import Llama

    n_ctx = max(len(s) for s in sequences) + 8
    kwargs: dict[str, Any] = {"lora_path": str(adapter_gguf), "lora_scale": scale} if adapter_gguf else {}
    with _plain_cpu_buffers():
        llm = Llama(str(base_gguf), n_ctx=n_ctx, n_batch=n_ctx, logits_all=True, verbose=False, seed=0, **kwargs)
    out = []
    try:
        for ids in sequences:
            llm.reset()
            llm.eval(ids)
            scores = np.asarray(llm.scores[: len(ids)], dtype=np.float64)
            top = scores.max(-1, keepdims=True)
            logz = top + np.log(np.exp(scores - top).sum(-1, keepdims=True))
            logp = scores - logz
            out.append([float(logp[i, ids[i + 1]]) for i in range(len(ids) - 1)])
    finally:
        llm.close()
    return out


MIN_EFFECT = 0.005  # mean |Δ log p| below which an adapter's effect is too small to correlate
MIN_CORRELATION = 0.9
SLOPE_RANGE = (0.9, 1.1)  # llama.cpp's effect / PEFT's: an adapter at the wrong scale falls outside


def _correlation(xs: list[float], ys: list[float]) -> float:
    n = len(xs)
    if n < 2:
        return 1.0
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 0 or syy <= 0:
        return 0.0
    return sxy / math.sqrt(sxx * syy)


def _slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of ``ys`` on ``xs`` (0 when ``xs`` do not vary)."""
    n = len(xs)
    if n < 2:
        return 1.0
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx <= 0:
        return 0.0
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx


def compare(
    peft_model: Any,
    sequences: list[list[int]],
    base_gguf: Path,
    adapter_gguf: Path,
    tolerance: float,
    *,
    answer_tokens: int = 0,
) -> Agreement:
    """Compare llama.cpp (base GGUF + adapter GGUF) with the PEFT model on ``sequences``."""
    with_peft = [_torch_logprobs(peft_model, s) for s in sequences]
    with peft_model.disable_adapter():
        without_peft = [_torch_logprobs(peft_model, s) for s in sequences]
    with_llama = llama_logprobs(base_gguf, adapter_gguf, sequences)
    without_llama = llama_logprobs(base_gguf, None, sequences)

    def flat(xs: list[list[float]]) -> list[float]:
        return [v for x in xs for v in x]

    wp, op, wl, ol = flat(with_peft), flat(without_peft), flat(with_llama), flat(without_llama)
    n = len(wp)
    mean = lambda values: sum(values) / max(len(values), 1)  # noqa: E731
    agreement = Agreement(
        sequences=len(sequences),
        tokens=n,
        mean_abs_diff=mean([abs(a - b) for a, b in zip(wl, wp, strict=True)]),
        base_mean_abs_diff=mean([abs(a - b) for a, b in zip(ol, op, strict=True)]),
        adapter_effect=mean([abs(a - b) for a, b in zip(wp, op, strict=True)]),
        effect_mean_abs_diff=mean([abs((a - b) - (c - d)) for a, b, c, d in zip(wl, ol, wp, op, strict=True)]),
    )
    effects_llama = [a - b for a, b in zip(wl, ol, strict=True)]
    effects_peft = [a - b for a, b in zip(wp, op, strict=True)]
    agreement.effect_correlation = _correlation(effects_llama, effects_peft)
    agreement.effect_slope = _slope(effects_peft, effects_llama)
    agreement.answer_tokens = answer_tokens
    agreement.max_tokens = max(len(s) for s in sequences)
    # A quantized base adds per-token noise of the same size as a small fine-tune's effect, so the effect is
    # compared by its shape (correlation) and its scale (the slope: noise in llama.cpp's effect does not bias it)
    # rather than token by token.
    shaped = agreement.effect_correlation >= MIN_CORRELATION
    scaled = SLOPE_RANGE[0] <= agreement.effect_slope <= SLOPE_RANGE[1]
    reproduced = agreement.adapter_effect < MIN_EFFECT or (shaped and scaled)
    agreement.passed = agreement.mean_abs_diff <= tolerance and reproduced
    return agreement


def main(config: ExportConfig) -> ExportResult:
    from safetensors.torch import load_file

    from ..modeling import resolve_base

    adapter_dir = Path(config.adapter_dir)
    if config.eval_dir and not (Path(config.eval_dir) / "metrics.json").is_file():
        raise ExportError(f"no evaluation in {config.eval_dir}: metrics.json is missing (run perfalign train eval)")
    cfg_path = adapter_dir / "adapter_config.json"
    weights_path = adapter_dir / "adapter_model.safetensors"
    if not cfg_path.is_file() or not weights_path.is_file():
        raise ExportError(f"{adapter_dir} is not a PEFT adapter folder (no adapter_config.json / adapter_model.safetensors)")
    adapter_cfg = json.loads(cfg_path.read_text())
    if adapter_cfg.get("peft_type", "LORA") != "LORA":
        raise ExportError(f"only LoRA adapters can be exported, not {adapter_cfg.get('peft_type')}")
    if adapter_cfg.get("task_type") == "SEQ_CLS":
        raise ExportError("this is a reward model (a classifier); only causal-LM adapters are served")
    run = read_run(adapter_dir)
    base_name = config.base or run.get("base") or adapter_cfg.get("base_model_name_or_path", "")
    if not base_name:
        raise ExportError("the adapter does not record its base; pass --base")
    ref = resolve_base(base_name)
    output = Path(config.output) if config.output else adapter_dir.parent / "adapter.gguf"

    base_gguf = Path(config.base_gguf) if config.base_gguf else ref.gguf
    if base_gguf is None:
        # A Hugging Face base: write an f16 GGUF of it beside the adapter so llama.cpp can serve both.
        from ..modeling import load_model, load_tokenizer

        base_gguf = output.with_name("base-f16.gguf")
        if not base_gguf.is_file():
            ggufio.write_model_gguf(base_gguf, load_model(ref, precision="fp32"), load_tokenizer(ref), dtype="f16", name=ref.name)
    if not base_gguf.is_file():
        raise ExportError(f"no base GGUF at {base_gguf}")
    arch, blocks = _base_info(base_gguf)

    tensors = ggufio.lora_tensors_from_peft(load_file(str(weights_path)))
    if not tensors:
        raise ExportError(f"{weights_path} holds no LoRA weights")
    metadata = {
        "base": base_name,
        "data_snapshot_id": str(run.get("data_snapshot_id", "")),
        "training_config": json.dumps(run.get("config", {}), sort_keys=True),
    }
    ggufio.write_lora_adapter(
        output, tensors, model_type=arch, n_blocks=blocks, alpha=_adapter_scale_alpha(adapter_cfg), dtype=config.dtype, metadata=metadata
    )
    result = ExportResult(adapter_gguf=output, base_gguf=base_gguf, size_bytes=output.stat().st_size, tensors=2 * len(tensors))

    peft_model = None
    if config.check_sequences > 0 or config.merged_q8:
        from peft import PeftModel

        from ..modeling import load_model, load_tokenizer

        tokenizer = load_tokenizer(ref)
        peft_model = PeftModel.from_pretrained(load_model(ref, precision="fp32"), str(adapter_dir)).eval()
        if config.check_sequences > 0:
            if importlib.util.find_spec("llama_cpp") is None:
                raise ExportError("llama-cpp-python is not installed, so the adapter cannot be checked; install it or pass --check-sequences 0")
            sequences, answers = check_data(adapter_dir, tokenizer, config.check_sequences)
            result.agreement = compare(
                peft_model, sequences, base_gguf, output, config.tolerance, answer_tokens=answers
            )
        if config.merged_q8:
            merged = peft_model.merge_and_unload()
            result.merged_gguf = ggufio.write_model_gguf(
                output.with_name(output.stem + "-merged-q8_0.gguf"),
                merged,
                tokenizer,
                dtype="q8_0",
                name=f"{base_name}+{adapter_dir.parent.name}",
                tokenizer_gguf=base_gguf,
                metadata=metadata,
            )

    result.card = {
        "description": f"LoRA adapter on {base_name} trained by `perfalign train {run.get('command', '?')}`",
        "lineage": {
            "base_model": base_name,
            "base_gguf": str(base_gguf),
            "training": str(run.get("command", "")),
            "data_snapshot_id": str(run.get("data_snapshot_id", "")),
            "checkpoint": str(config.adapter_dir),
            **({"init_adapter": str(run["config"]["init_adapter"])}
               if (run.get("config") or {}).get("init_adapter") else {}),
        },
        "training_config": run.get("config", {}),
        "exported": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "check": asdict(result.agreement) if result.agreement else {},
    }
    output.with_suffix(".json").write_text(json.dumps(result.card, indent=2, sort_keys=True, default=str) + "\n")
    if result.agreement is not None and not result.agreement.passed:
        raise ExportError(f"llama.cpp does not reproduce the PEFT model: {result.agreement.summary()} (tolerance {config.tolerance})")
    if config.register_as:
        result.manifest = register(config.register_as, base_name, output, result.card, in_repo=config.in_repo,
                                   eval_dir=Path(config.eval_dir) if config.eval_dir else None)
    return result


def register(name: str, base: str, adapter_gguf: Path, card: dict[str, Any], *, in_repo: bool = False,
             eval_dir: Path | None = None, repo_models_dir: Path | None = None) -> Path:
    """Register the adapter so ``perfalign optimize --model NAME`` and the server use it.

    The evaluation in ``eval_dir`` (default: ``eval/`` beside the adapter), when there is one, gives the
    manifest's ``[eval]`` table: the trained model's scores, and each paired comparison over all functions
    (base, trained, difference and its 95% interval) with the decision.
    """
    from perfalign.server import registry

    eval_path = (eval_dir if eval_dir is not None else adapter_gguf.parent / "eval") / "metrics.json"
    card = dict(card)
    if eval_path.is_file():
        card["eval"] = eval_scores(json.loads(eval_path.read_text()))
        card["eval"]["evaluation"] = str(eval_path.parent)
    elif eval_dir is not None:
        raise ExportError(f"no evaluation in {eval_dir}: {eval_path.name} is missing (run perfalign train eval)")
    card.pop("training_config", None)
    card.pop("check", None)
    lineage = dict(card.get("lineage") or {})
    if in_repo and lineage.get("base_gguf"):
        # a path on the exporting machine means nothing in a clone; the file name says which base it is
        card["lineage"] = {**lineage, "base_gguf": Path(lineage["base_gguf"]).name}
    try:
        return registry.register_adapter(name, base, adapter_gguf, card, in_repo=in_repo,
                                         repo_models_dir=repo_models_dir)
    except registry.RegistryError as exc:
        raise ExportError(f"cannot register {name!r}: {exc}") from None


def eval_scores(metrics: dict[str, Any]) -> dict[str, Any]:
    """The flat ``[eval]`` table of a manifest from an evaluation's ``metrics.json``."""
    scores: dict[str, Any] = {k: v for k, v in metrics.get("trained", {}).items() if isinstance(v, (int, float, str))}
    for row in metrics.get("paired", []):
        if row.get("group") != "all":
            continue
        if "trained_geomean" in row:  # a ratio of geometric means (the gain), not a difference
            values = {"base": row["base_geomean"], "trained": row["trained_geomean"],
                      **{key: row[key] for key in ("ratio", "ratio_low", "ratio_high")}}
        else:
            values = {key: row[key] for key in ("base", "trained", "difference", "low", "high")
                      if isinstance(row.get(key), (int, float))}
        scores.update({f"{row['metric']}_{key}": value for key, value in values.items()})
    decision = metrics.get("decision") or {}
    if decision:
        scores["decision"] = f"{'wins' if decision.get('trained_wins') else 'does not win'}: {decision.get('rule', '')}"
    return scores
