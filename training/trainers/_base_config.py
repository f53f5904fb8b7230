"""The settings every trainer shares: the base, the data, the run's length, LoRA and precision."""
from __future__ import annotations

from dataclasses import dataclass

from ..config import opt

LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


@dataclass
class BaseConfig:
    """Shared by every trainer."""

    base: str = opt("qwen2.5-coder-0.5b", "Base model: a registered model name, a .gguf file, or a Hugging Face folder.")
    output_dir: str = opt("runs/latest", "Folder for checkpoints, the adapter, its config and card.")
    data: list[str] = opt([], "JSONL files from `perfalign prefs export` or `perfalign train selfplay`.")
    exclude_functions: list[str] = opt([], "JSONL files whose functions are never trained on (the evaluation set).")
    seed: int = opt(0, "Random seed for data order, LoRA init and sampling.")
    max_steps: int = opt(100, "Optimizer steps to run.")
    learning_rate: float = opt(5e-5, "Peak learning rate.")
    per_device_batch_size: int = opt(1, "Examples per device per step.")
    gradient_accumulation_steps: int = opt(4, "Micro-batches accumulated per optimizer step.")
    max_length: int = opt(1024, "Longest tokenised example; longer ones are truncated.")
    init_adapter: str = opt("", "Continue training this PEFT adapter folder instead of starting a fresh LoRA.")
    lora_r: int = opt(16, "LoRA rank.")
    lora_alpha: float = opt(32.0, "LoRA alpha (scale = alpha / rank).")
    lora_dropout: float = opt(0.0, "LoRA dropout.")
    lora_targets: list[str] = opt(LORA_TARGETS, "Modules that get LoRA weights.")
    precision: str = opt("auto", "auto (bf16 on a GPU that has it, else fp32), bf16, fp16 or fp32.")
    gradient_checkpointing: bool = opt(False, "Recompute activations to save memory.")
    logging_steps: int = opt(1, "Log every N steps.")
    save_steps: int = opt(0, "Save a checkpoint every N steps (0: only at the end).")
    time_limit_s: float = opt(0.0, "Stop after this many seconds of training with a checkpoint saved; rerun the same "
                                   "command to go on (0: no limit).")
    resume: bool = opt(True, "Go on from the newest checkpoint in OUTPUT_DIR/checkpoints when it is of this same "
                             "run (base, data, settings); --no-resume discards them.")
    cache_dequantized: bool = opt(True, "Keep a dequantized copy of a GGUF base so later runs load it fast.")
    report_to: str = opt("none", "Where trainer logs go: none, tensorboard, wandb …")
