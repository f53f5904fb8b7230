"""The settings of the reward model's training."""
from __future__ import annotations

from dataclasses import dataclass

from ..config import opt
from ._base_config import BaseConfig


@dataclass
class RewardConfig(BaseConfig):
    """A reward model that predicts which of two versions is faster."""

    learning_rate: float = opt(1e-4, "Peak learning rate.")
    center_rewards_coefficient: float = opt(0.01, "Pull mean reward toward 0 (0 disables).")
    eval_fraction: float = opt(0.1, "Share of functions held out for pairwise accuracy when the data has no eval split.")
    use_margin: bool = opt(True, "Subtract each pair's margin from the reward difference (needs one on every row).")
    max_pairs_per_prompt: int = opt(4, "Most pairs kept per prompt, spread over distinct answers (0: all).")
