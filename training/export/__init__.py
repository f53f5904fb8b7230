"""Export a trained LoRA as a GGUF adapter, check that llama.cpp computes what PEFT computes, register it.

:func:`main` (``perfalign train export``) writes the adapter GGUF (``_gguf``: GGUF files with the
``gguf`` library, adapters and merged models), compares the adapter's effect on per-token
log-probabilities in llama.cpp and in PEFT (:func:`compare`), and registers the adapter as a model
(:func:`register`) with its card and evaluation scores.
"""
from ._config import ExportConfig
from ._export import Agreement, ExportError, ExportResult, compare, main, register
from ._gguf import GGUFExportError, read_metadata, write_lora_adapter, write_model_gguf

__all__ = [
    "Agreement",
    "ExportConfig",
    "ExportError",
    "ExportResult",
    "GGUFExportError",
    "compare",
    "main",
    "read_metadata",
    "register",
    "write_lora_adapter",
    "write_model_gguf",
]
