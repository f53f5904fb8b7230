"""A reward model that scores a rewrite; trained on pairs to rank the faster version higher.

Its held-out pairwise accuracy (chosen scored above rejected, on functions it
never saw) is measured after training and stored with the adapter.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from ..data import to_dataset
from . import _common as common
from ._reward_config import RewardConfig

COLUMNS = ("prompt", "chosen", "rejected")


def columns_for(rows: list[dict[str, Any]], use_margin: bool) -> tuple[str, ...]:
    """The dataset columns: with ``margin`` (TRL subtracts it from the reward difference) when every row has one."""
    if use_margin and rows and all(isinstance(r.get("margin"), (int, float)) for r in rows):
        return COLUMNS + ("margin",)
    return COLUMNS


def reward_score(model: Any, tokenizer: Any, prompt: list[dict[str, str]], answer: list[dict[str, str]], max_length: int) -> float:
    """The reward model's scalar for ``prompt`` followed by ``answer``."""
    import torch

    ids = tokenizer.apply_chat_template(prompt + answer, tokenize=True, return_dict=True)["input_ids"][-max_length:]
    device = next(model.parameters()).device
    with torch.no_grad():
        return float(model(input_ids=torch.tensor([ids], device=device)).logits[0, 0])


def pairwise_accuracy(model: Any, tokenizer: Any, rows: list[dict[str, Any]], max_length: int) -> float | None:
    """Share of pairs whose chosen answer scores above the rejected one (None without pairs)."""
    if not rows:
        return None
    model.eval()
    wins = sum(
        reward_score(model, tokenizer, r["prompt"], r["chosen"], max_length) > reward_score(model, tokenizer, r["prompt"], r["rejected"], max_length)
        for r in rows
    )
    return wins / len(rows)


def train_reward(config: RewardConfig) -> common.TrainResult:
    splits = common.load_data(config, "pairs", eval_fraction=config.eval_fraction)  # bad data fails fast, before the heavy imports
    from trl import RewardConfig as TRLRewardConfig
    from trl import RewardTrainer

    from ..modeling import load_model, load_tokenizer, lora_config, resolve_base

    ref = resolve_base(config.base)
    tokenizer = load_tokenizer(ref, cache=config.cache_dequantized)
    model = load_model(ref, precision=config.precision, cache=config.cache_dequantized, kind="reward")
    args = TRLRewardConfig(
        **common.trl_kwargs(config, Path(config.output_dir)),
        max_length=config.max_length,
        center_rewards_coefficient=config.center_rewards_coefficient or None,
    )
    columns = columns_for(splits.train, config.use_margin)
    trainer = RewardTrainer(
        model=model,
        args=args,
        train_dataset=to_dataset(splits.train, columns),
        processing_class=tokenizer,
        peft_config=lora_config(config, task_type="SEQ_CLS"),
    )
    run = common.run_trainer(trainer, config, splits)
    accuracy = pairwise_accuracy(trainer.model, tokenizer, splits.eval, config.max_length)
    metrics: dict[str, Any] = {"heldout_pairs": len(splits.eval), "margin_used": "margin" in columns}
    if accuracy is not None:
        metrics["heldout_pairwise_accuracy"] = accuracy
    return common.save("reward", trainer, config, splits, run, metrics=metrics)
