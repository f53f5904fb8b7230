"""The settings of supervised fine-tuning."""
from __future__ import annotations

from dataclasses import dataclass

from ..config import opt
from ._base_config import BaseConfig


@dataclass
class SFTConfig(BaseConfig):
    """Supervised fine-tuning on the fastest verified rewrite of each function."""

    learning_rate: float = opt(1e-4, "Peak learning rate.")
    completion_only_loss: bool = opt(True, "Train on the answer only, not the prompt.")
