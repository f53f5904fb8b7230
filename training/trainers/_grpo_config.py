"""The settings of GRPO, its rewards and the verifier runs that score them."""
from __future__ import annotations

from dataclasses import dataclass

from ..config import opt
from ._base_config import BaseConfig


@dataclass
class GRPOConfig(BaseConfig):
    """Online RL whose reward is the verifier's verdict on each sampled completion."""

    max_steps: int = opt(20, "Optimizer steps to run.")
    learning_rate: float = opt(1e-5, "Peak learning rate.")
    num_generations: int = opt(4, "Completions sampled per prompt (the group).")
    max_completion_length: int = opt(384, "Longest completion in tokens.")
    temperature: float = opt(0.8, "Sampling temperature.")
    beta: float = opt(0.0, "KL penalty toward the base model (0 disables it).")
    speedup_weight: float = opt(1.0, "Reward per unit of log2 of the interval's low end, for a faster candidate.")
    correct_bonus: float = opt(0.5, "Reward for a correct candidate that is not verified faster.")
    incorrect_reward: float = opt(0.1, "Reward for a candidate that built but is wrong, crashed or timed out.")
    faster_bonus: float = opt(0.5, "Added to correct_bonus for a verified-faster candidate, before its speed term.")
    max_reward: float = opt(4.0, "Upper clip of the execution reward.")
    length_penalty_weight: float = opt(0.0, "Weight of the penalty for completions longer than length_limit_chars (0 disables).")
    length_limit_chars: int = opt(2000, "Completions longer than this many characters are penalised.")
    reward_model: str = opt("", "Optional reward-model folder whose score is added to the execution reward.")
    reward_model_weight: float = opt(0.1, "Weight of the reward-model score.")
    verify_workers: int = opt(2, "Processes that verify completions in parallel.")
    verify_timeout_s: float = opt(60.0, "Wall-clock limit per verification.")
    threads: int = opt(2, "OpenMP threads when timing parallel candidates.")
    repetitions: int = opt(7, "Timed runs per candidate during RL (fewer than for suggestions).")
    use_vllm: bool = opt(False, "Generate with vLLM when it is installed.")
