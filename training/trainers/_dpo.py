"""DPO on performance pairs: the faster correct rewrite is preferred over the slower or incorrect one."""
from __future__ import annotations

from pathlib import Path

from perfalign.server.verdict import Status

from ..config import ConfigError
from ..data import to_dataset
from . import _common as common
from ._dpo_config import DPOConfig

COLUMNS = ("prompt", "chosen", "rejected")
# What a pair's rejected answer can be: the function as written, or a candidate with its verdict.
REJECTED_STATUSES = frozenset({"original", *(status.value for status in Status)})


def train_dpo(config: DPOConfig) -> common.TrainResult:
    if config.sft_weight < 0:
        raise ConfigError(f"sft_weight must be 0 or more, got {config.sft_weight:g}")
    unknown = sorted(set(config.exclude_rejected) - REJECTED_STATUSES)
    if unknown:
        raise ConfigError(f"exclude_rejected: unknown status {', '.join(unknown)}; "
                          f"one of {', '.join(sorted(REJECTED_STATUSES))}")
    splits = common.load_data(config, "pairs", min_margin=config.min_margin)  # bad data fails fast, before the heavy imports
    from trl import DPOConfig as TRLDPOConfig
    from trl import DPOTrainer

    from ..modeling import load_model, load_tokenizer, resolve_base

    ref = resolve_base(config.base)
    tokenizer = load_tokenizer(ref, cache=config.cache_dequantized)
    model, peft_config = common.with_adapter(config, load_model(ref, precision=config.precision, cache=config.cache_dequantized))
    args = TRLDPOConfig(
        **common.trl_kwargs(config, Path(config.output_dir)),
        beta=config.beta,
        loss_type=[config.loss_type, "sft"] if config.sft_weight > 0 else [config.loss_type],
        loss_weights=[1.0, config.sft_weight] if config.sft_weight > 0 else None,
        max_length=config.max_length,
    )
    trainer = DPOTrainer(
        model=model,
        args=args,
        train_dataset=to_dataset(splits.train, COLUMNS),
        processing_class=tokenizer,
        peft_config=peft_config,
    )
    run = common.run_trainer(trainer, config, splits)
    rewards = [e for e in trainer.state.log_history if "rewards/accuracies" in e]
    metrics = {"reward_accuracy": float(rewards[-1]["rewards/accuracies"])} if rewards else {}
    # The chosen answers' log-probability falling step after step is DPO unlearning what it should prefer.
    chosen = [float(e["logps/chosen"]) for e in trainer.state.log_history if "logps/chosen" in e]
    if chosen:
        metrics["chosen_logp_first"], metrics["chosen_logp_last"] = chosen[0], chosen[-1]
    return common.save("dpo", trainer, config, splits, run, metrics=metrics)
