"""Sample completions from the model being trained: llama.cpp on a GGUF, or transformers on a GPU.

* ``llama-cpp``: the server's own batched backend, on the base GGUF with an
  optional GGUF LoRA adapter — exactly what users get.
* ``transformers``: the dequantized base (or a Hugging Face folder) with an
  optional PEFT adapter folder; batched ``generate`` on whatever device is there.

``auto`` picks transformers when a CUDA device is present, else llama.cpp.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from perfalign.server.errors import PerfalignError

Messages = list[dict[str, str]]


class SamplingError(PerfalignError, RuntimeError):
    """A model that cannot be sampled; the message says what to change."""


class Sampler(Protocol):
    name: str

    def generate(self, messages: Messages, n: int, *, max_tokens: int, temperature: float, seed: int) -> list[str]: ...

    def generate_turns(self, turns: list[Messages], seeds: list[int], *, max_tokens: int,
                       temperature: float) -> list[str]: ...

    def close(self) -> None: ...


@dataclass
class LlamaCppSampler:
    backend: Any
    name: str

    def generate(self, messages: Messages, n: int, *, max_tokens: int, temperature: float, seed: int) -> list[str]:
        from perfalign.server.backends import SamplingParams

        params = SamplingParams(max_tokens=max_tokens, temperature=temperature, top_p=0.95, seed=seed)
        return list(self.backend.generate(messages, n, params))

    def generate_turns(self, turns: list[Messages], seeds: list[int], *, max_tokens: int,
                       temperature: float) -> list[str]:
        """One answer to each conversation, all in one batch (their shared prefix read once)."""
        from perfalign.server.backends import SamplingParams

        params = SamplingParams(max_tokens=max_tokens, temperature=temperature, top_p=0.95, seed=seeds[0] if seeds else 0)
        return list(self.backend.generate_turns(turns, params, seeds))

    def close(self) -> None:
        self.backend.close()


class TransformersSampler:
    def __init__(self, model: Any, tokenizer: Any, name: str, batch: int = 16) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.name = name
        self.batch = batch

    def generate(self, messages: Messages, n: int, *, max_tokens: int, temperature: float, seed: int) -> list[str]:
        import torch

        prompt = self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        device = next(self.model.parameters()).device
        ids = self.tokenizer(prompt, return_tensors="pt", add_special_tokens=False).to(device)
        torch.manual_seed(seed)
        texts: list[str] = []
        while len(texts) < n:
            k = min(self.batch, n - len(texts))
            with torch.no_grad():
                out = self.model.generate(
                    **ids,
                    do_sample=temperature > 0,
                    temperature=max(temperature, 1e-5),
                    top_p=0.95,
                    max_new_tokens=max_tokens,
                    num_return_sequences=k,
                    pad_token_id=self.tokenizer.pad_token_id,
                )
            start = ids["input_ids"].shape[1]
            texts += self.tokenizer.batch_decode(out[:, start:], skip_special_tokens=True)
        return texts

    def generate_turns(self, turns: list[Messages], seeds: list[int], *, max_tokens: int,
                       temperature: float) -> list[str]:
        """One answer to each conversation, one after another."""
        return [self.generate(messages, 1, max_tokens=max_tokens, temperature=temperature, seed=seed)[0]
                for messages, seed in zip(turns, seeds, strict=True)]

    def close(self) -> None:
        self.model = None


def gguf_adapter(adapter: str) -> Path | None:
    """The GGUF file of an adapter given as a file, a PEFT folder exported beside it, or a registered model name."""
    if not adapter:
        return None
    path = Path(adapter)
    if path.is_file() and path.suffix == ".gguf":
        return path
    if (path.parent / "adapter.gguf").is_file() and (path / "adapter_config.json").is_file():
        return path.parent / "adapter.gguf"
    from perfalign.server import registry

    try:
        resolved = registry.resolve(adapter)
    except registry.RegistryError:
        return None
    return Path(resolved.adapter_path) if resolved.adapter_path else None


def check_adapter(base: str, adapter: str, engine: str = "auto") -> None:
    """Raise :class:`SamplingError` now if ``adapter`` cannot be loaded on ``engine`` (before hours of work)."""
    if not adapter:
        return
    from ._loading import resolve_base

    if _engine(resolve_base(base), engine) == "llama-cpp":
        if gguf_adapter(adapter) is None:
            raise SamplingError(f"{adapter} is not a GGUF adapter or a registered one; run `perfalign train export` first or use --engine transformers")
    elif not (Path(adapter) / "adapter_config.json").is_file():
        raise SamplingError(f"{adapter} is not a PEFT adapter folder (the transformers engine needs one)")


def _engine(ref: Any, engine: str) -> str:
    if engine == "auto":
        return "llama-cpp" if ref.gguf is not None and not _cuda() else "transformers"
    return engine


def open_sampler(base: str, adapter: str = "", engine: str = "auto", *, threads: int = 0) -> Sampler:
    """A sampler for ``base`` (+ ``adapter``) on ``engine`` (llama-cpp, transformers or auto)."""
    from ._loading import resolve_base

    ref = resolve_base(base)
    engine = _engine(ref, engine)
    label = base + (f"+{Path(adapter).name}" if adapter else "")
    if engine == "llama-cpp":
        if ref.gguf is None:
            raise SamplingError(f"{base} has no GGUF for llama.cpp; use --engine transformers")
        check_adapter(base, adapter, engine)
        adapter_gguf = gguf_adapter(adapter)
        from perfalign.server.backends import backend_for
        from perfalign.server.registry import ResolvedModel
        from perfalign.server.settings import Settings

        model = ResolvedModel(name=label, backend="llama-cpp", prompt_format="chatml", model_path=ref.gguf, adapter_path=adapter_gguf)
        return LlamaCppSampler(backend_for(model, Settings(), {"n_threads": threads}), label)
    if engine != "transformers":
        raise SamplingError(f"unknown engine {engine!r}; one of auto, llama-cpp, transformers")
    from ._loading import load_model, load_tokenizer

    model = load_model(ref)
    if adapter:
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, adapter)
    if _cuda():
        model = model.to("cuda")
    tokenizer = load_tokenizer(ref)
    tokenizer.padding_side = "left"
    return TransformersSampler(model.eval(), tokenizer, label)


def _cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())
