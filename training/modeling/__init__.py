"""The models being trained: load a base, give it LoRA weights, sample it; a tiny one for tests.

:func:`resolve_base` finds a base (a registered name, a GGUF file, a Hugging Face folder);
:func:`load_model` and :func:`load_tokenizer` load it for training (a GGUF dequantized and cached),
:func:`lora_config` is the adapter the trainers add. :func:`open_sampler` samples completions with
llama.cpp or transformers, with an optional adapter, for self-play and the evaluation.
:func:`build_tiny_model` writes a tiny random Qwen2 model that every stage runs on in seconds.
"""
from ._loading import (
    BaseRef,
    ModelLoadError,
    load_model,
    load_tokenizer,
    lora_config,
    pick_dtype,
    resolve_base,
    trainer_precision,
)
from ._sampling import (
    LlamaCppSampler,
    Sampler,
    SamplingError,
    TransformersSampler,
    check_adapter,
    gguf_adapter,
    open_sampler,
)
from ._tiny import build_tiny_model

__all__ = [
    "BaseRef",
    "LlamaCppSampler",
    "ModelLoadError",
    "Sampler",
    "SamplingError",
    "TransformersSampler",
    "build_tiny_model",
    "check_adapter",
    "gguf_adapter",
    "load_model",
    "load_tokenizer",
    "lora_config",
    "open_sampler",
    "pick_dtype",
    "resolve_base",
    "trainer_precision",
]
