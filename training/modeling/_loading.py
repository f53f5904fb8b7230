"""Load a base model for training: from the GGUF the server serves or a Hugging Face folder.

A GGUF is dequantized by transformers; its quantization config is removed so
the model trains and saves like any other. The dequantized copy is cached
(``models_dir()/dequantized/<name>``) so the next run loads in seconds.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfalign.server.errors import PerfalignError


class ModelLoadError(PerfalignError, RuntimeError):
    """A base model that cannot be found or loaded; the message names the fix."""


@dataclass(frozen=True)
class BaseRef:
    """Where a base model lives. ``gguf`` is the served file (for export checks), if any."""

    name: str
    folder: Path  # a Hugging Face folder, or the GGUF's folder
    gguf_file: str | None = None

    @property
    def gguf(self) -> Path | None:
        return self.folder / self.gguf_file if self.gguf_file else None


def resolve_base(base: str) -> BaseRef:
    """A registered model name, a ``.gguf`` file or a Hugging Face folder -> :class:`BaseRef`."""
    path = Path(base).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise ModelLoadError(f"{path} has no config.json; give a Hugging Face model folder or a .gguf file")
        return BaseRef(name=path.name, folder=path.resolve())
    if path.suffix == ".gguf":
        if not path.is_file():
            raise ModelLoadError(f"no such GGUF file: {path}")
        return BaseRef(name=path.stem, folder=path.resolve().parent, gguf_file=path.name)
    try:
        from perfalign.server import registry

        resolved = registry.resolve(base)
    except Exception as exc:  # registry errors carry the fix (pull, register)
        raise ModelLoadError(f"cannot use base model {base!r}: {exc}") from None
    if resolved.hf_path:
        return BaseRef(name=base, folder=Path(resolved.hf_path))
    if resolved.model_path is None:
        raise ModelLoadError(f"model {base!r} has no local weights to train; run: perfalign models pull {base}")
    return BaseRef(name=base, folder=resolved.model_path.parent, gguf_file=resolved.model_path.name)


def pick_dtype(precision: str):  # type: ignore[no-untyped-def]
    import torch

    if precision == "auto":
        if torch.cuda.is_available() and torch.cuda.is_bf16_supported():
            return torch.bfloat16
        return torch.float32
    table = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
    if precision not in table:
        raise ModelLoadError(f"unknown precision {precision!r}; one of auto, {', '.join(table)}")
    return table[precision]


def _cache_dir(ref: BaseRef) -> Path:
    from perfalign.server.paths import models_dir

    gguf = ref.gguf
    assert gguf is not None
    stat = gguf.stat()
    tag = hashlib.sha256(f"{gguf.resolve()}:{stat.st_size}:{stat.st_mtime_ns}".encode()).hexdigest()[:10]
    return models_dir() / "dequantized" / f"{gguf.stem}-{tag}"


def _drop_quantizer(model: Any) -> None:
    quantizer = getattr(model, "hf_quantizer", None)
    if quantizer is not None:
        quantizer.remove_quantization_config(model)


def load_tokenizer(ref: BaseRef, *, cache: bool = True):  # type: ignore[no-untyped-def]
    from transformers import AutoTokenizer

    if ref.gguf_file and cache and (_cache_dir(ref) / "tokenizer_config.json").is_file():
        tok = AutoTokenizer.from_pretrained(_cache_dir(ref))
    elif ref.gguf_file:
        tok = AutoTokenizer.from_pretrained(ref.folder, gguf_file=ref.gguf_file)
    else:
        tok = AutoTokenizer.from_pretrained(ref.folder)
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return tok


def load_model(ref: BaseRef, *, precision: str = "auto", cache: bool = True, kind: str = "causal-lm"):  # type: ignore[no-untyped-def]
    """The base as a ``transformers`` model (``kind``: causal-lm or reward, a one-logit classifier)."""
    from transformers import AutoModelForCausalLM, AutoModelForSequenceClassification

    dtype = pick_dtype(precision)
    folder, gguf_file = ref.folder, ref.gguf_file
    if gguf_file and cache:
        cached = _cache_dir(ref)
        if not (cached / "config.json").is_file():
            model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=gguf_file, dtype=dtype)
            _drop_quantizer(model)
            # One folder per process: under `accelerate launch` every process gets here.
            tmp = cached.with_name(f"{cached.name}.partial-{os.getpid()}")
            model.save_pretrained(tmp)
            load_tokenizer(ref, cache=False).save_pretrained(tmp)
            (tmp / "perfalign-source.json").write_text(json.dumps({"gguf": str(ref.gguf)}) + "\n")
            try:
                tmp.rename(cached)
            except OSError:  # another process finished first: its copy is the same
                shutil.rmtree(tmp, ignore_errors=True)
            if kind == "causal-lm":
                return model
        folder, gguf_file = cached, None
    cls = AutoModelForCausalLM if kind == "causal-lm" else AutoModelForSequenceClassification
    extra: dict[str, Any] = {"num_labels": 1} if kind == "reward" else {}
    try:
        if gguf_file:
            model = cls.from_pretrained(folder, gguf_file=gguf_file, dtype=dtype, **extra)
        else:
            model = cls.from_pretrained(folder, dtype=dtype, **extra)
    except OSError as exc:
        raise ModelLoadError(f"cannot load {ref.name} from {folder}: {exc}") from None
    _drop_quantizer(model)
    if kind == "reward" and model.config.pad_token_id is None:
        model.config.pad_token_id = load_tokenizer(ref, cache=cache).pad_token_id
    return model


def lora_config(config: Any, *, task_type: str = "CAUSAL_LM"):  # type: ignore[no-untyped-def]
    from peft import LoraConfig

    return LoraConfig(
        r=config.lora_r,
        lora_alpha=config.lora_alpha,
        lora_dropout=config.lora_dropout,
        target_modules=list(config.lora_targets),
        task_type=task_type,
        bias="none",
    )


def trainer_precision(precision: str) -> dict[str, bool]:
    """``bf16``/``fp16`` flags for a TRL config."""
    import torch

    dtype = pick_dtype(precision)
    return {"bf16": dtype == torch.bfloat16, "fp16": dtype == torch.float16}
