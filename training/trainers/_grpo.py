"""Online RL with performance feedback (GRPO): sample a group per prompt, verify each, reward speed.

Prompts are the store's RL rows (or self-play's): the prompt messages plus the
compilable ``source``, ``language``, ``function`` and ``mode`` the execution
reward needs.
"""
from __future__ import annotations

from pathlib import Path

from ..data import to_dataset
from ..rewards import get_execution_reward, get_length_penalty, get_reward_model_reward
from . import _common as common
from ._grpo_config import GRPOConfig

COLUMNS = ("prompt", "source", "language", "function", "mode")


def train_grpo(config: GRPOConfig) -> common.TrainResult:
    splits = common.load_data(config, "rl")  # bad data fails fast, before the heavy imports
    from trl import GRPOConfig as TRLGRPOConfig
    from trl import GRPOTrainer

    from ..modeling import load_model, load_tokenizer, resolve_base

    ref = resolve_base(config.base)
    tokenizer = load_tokenizer(ref, cache=config.cache_dequantized)
    model, peft_config = common.with_adapter(config, load_model(ref, precision=config.precision, cache=config.cache_dequantized))
    execution = get_execution_reward(
        speedup_weight=config.speedup_weight,
        correct_bonus=config.correct_bonus,
        max_reward=config.max_reward,
        incorrect_reward=config.incorrect_reward,
        faster_bonus=config.faster_bonus,
        workers=config.verify_workers,
        timeout_s=config.verify_timeout_s,
        threads=config.threads,
        repetitions=config.repetitions,
    )
    reward_funcs: list[object] = [execution]
    weights = [1.0]
    if config.length_penalty_weight > 0:
        reward_funcs.append(get_length_penalty(config.length_limit_chars))
        weights.append(config.length_penalty_weight)
    if config.reward_model:
        reward_funcs.append(get_reward_model_reward(config.reward_model, max_length=config.max_length))
        weights.append(config.reward_model_weight)
    kwargs = common.trl_kwargs(config, Path(config.output_dir))
    kwargs["per_device_train_batch_size"] = config.num_generations * config.per_device_batch_size
    args = TRLGRPOConfig(
        **kwargs,
        num_generations=config.num_generations,
        max_completion_length=config.max_completion_length,
        temperature=config.temperature,
        beta=config.beta,
        reward_weights=weights,
        use_vllm=config.use_vllm,
        log_completions=False,
    )
    rows = [dict(r, language=r.get("language") or "c", mode=r.get("mode") or "serial") for r in splits.train]
    while len(rows) < config.per_device_batch_size:  # a full batch of prompts even from a tiny data set
        rows += rows
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=reward_funcs,  # type: ignore[arg-type]
        args=args,
        train_dataset=to_dataset(rows, COLUMNS),
        processing_class=tokenizer,
        peft_config=peft_config,
    )
    try:
        run = common.run_trainer(trainer, config, splits)
    finally:
        execution.close()
    history = [e for e in trainer.state.log_history if "reward" in e]
    metrics = {"mean_reward_first": float(history[0]["reward"]), "mean_reward_last": float(history[-1]["reward"])} if history else {}
    return common.save("grpo", trainer, config, splits, run, metrics=metrics)
