"""Supervised fine-tuning on the fastest verified rewrite of each function."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from . import _common as common
from ._sft_config import SFTConfig


def as_prompt_completion(row: dict[str, Any]) -> dict[str, Any]:
    """``messages`` -> ``prompt`` (all but the answer) and ``completion`` (the answer)."""
    messages = row["messages"]
    return {"prompt": messages[:-1], "completion": messages[-1:]}


def train_sft(config: SFTConfig) -> common.TrainResult:
    splits = common.load_data(config, "sft")  # bad data fails fast, before the heavy imports
    from datasets import Dataset
    from trl import SFTConfig as TRLSFTConfig
    from trl import SFTTrainer

    from ..modeling import load_model, load_tokenizer, resolve_base

    ref = resolve_base(config.base)
    tokenizer = load_tokenizer(ref, cache=config.cache_dequantized)
    model, peft_config = common.with_adapter(config, load_model(ref, precision=config.precision, cache=config.cache_dequantized))
    args = TRLSFTConfig(
        **common.trl_kwargs(config, Path(config.output_dir)),
        max_length=config.max_length,
        completion_only_loss=config.completion_only_loss,
    )
    trainer = SFTTrainer(
        model=model,
        args=args,
        train_dataset=Dataset.from_list([as_prompt_completion(r) for r in splits.train]),
        processing_class=tokenizer,
        peft_config=peft_config,
    )
    run = common.run_trainer(trainer, config, splits)
    return common.save("sft", trainer, config, splits, run)
