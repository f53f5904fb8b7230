"""The settings of the export and its check."""
from __future__ import annotations

from dataclasses import dataclass

from ..config import opt


@dataclass
class ExportConfig:
    """Write the trained LoRA as a GGUF adapter, check it in llama.cpp and register it."""

    adapter_dir: str = opt("runs/latest/adapter", "PEFT adapter folder written by a trainer.")
    base: str = opt("", "Base model (default: the one recorded with the adapter).")
    base_gguf: str = opt("", "The base GGUF the server serves (default: resolved from the base name).")
    output: str = opt("", "Adapter GGUF path (default: <adapter_dir>/../adapter.gguf).")
    dtype: str = opt("f16", "Adapter tensor type: f16 or f32.")
    check_sequences: int = opt(3, "Sequences on which llama.cpp and PEFT log-probabilities are compared (0 skips).")
    tolerance: float = opt(0.15, "Largest mean |log-prob difference| per token accepted (quantized base vs dequantized weights).")
    merged_q8: bool = opt(False, "Also write base+adapter merged into one Q8_0 GGUF.")
    register_as: str = opt("", "Register the adapter under this model name (empty: do not register).")
    in_repo: bool = opt(False, "Register into the repository's models/ folder instead of the user's.")
    eval_dir: str = opt("", "The adapter's paired evaluation (a `perfalign train eval` folder); its scores go into "
                            "the registered manifest (default: <output>/../eval).")
