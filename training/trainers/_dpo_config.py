"""The settings of DPO."""
from __future__ import annotations

from dataclasses import dataclass

from ..config import opt
from ._base_config import BaseConfig


@dataclass
class DPOConfig(BaseConfig):
    """Direct preference optimisation on (faster, slower-or-incorrect) pairs."""

    beta: float = opt(0.1, "DPO temperature: how far the policy may move from the base.")
    loss_type: str = opt("sigmoid", "DPO loss: sigmoid, ipo, hinge, robust …")
    sft_weight: float = opt(0.0, "Weight of a log-likelihood term on the chosen answer (as in RPO) that keeps DPO "
                                 "from lowering the chosen answers with the rejected (0 disables it).")
    min_margin: float = opt(0.0, "Skip pairs whose speedup margin is smaller.")
    max_pairs_per_prompt: int = opt(4, "Most pairs kept per prompt, spread over distinct answers (0: all).")
    exclude_rejected: list[str] = opt([], "Leave out the pairs whose rejected answer has this status: original (the "
                                          "function as written), or a verdict (incorrect, compile_error, ...).")
