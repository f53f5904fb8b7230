"""The trainers: SFT, DPO, a reward model and GRPO, each on TRL, each with its config beside it.

:func:`train_sft`, :func:`train_dpo`, :func:`train_reward` and :func:`train_grpo` train a LoRA adapter
on a base and save it with its run record (:data:`RUN_FILE`, read back by :func:`read_run`), so any
checkpoint can be traced to its data and settings; a rerun of the same command goes on from the newest
checkpoint. Each trainer's settings (:class:`SFTConfig`, :class:`DPOConfig`, :class:`RewardConfig`,
:class:`GRPOConfig`) extend the :class:`BaseConfig` they share. :func:`reward_score` is what a trained reward model says of one answer.
"""
from ._base_config import LORA_TARGETS, BaseConfig
from ._common import RESUME_FILE, RUN_FILE, TrainingError, TrainResult, read_run
from ._dpo import train_dpo
from ._dpo_config import DPOConfig
from ._grpo import train_grpo
from ._grpo_config import GRPOConfig
from ._reward import reward_score, train_reward
from ._reward_config import RewardConfig
from ._sft import train_sft
from ._sft_config import SFTConfig

__all__ = [
    "LORA_TARGETS",
    "BaseConfig",
    "DPOConfig",
    "GRPOConfig",
    "RewardConfig",
    "SFTConfig",
    "RESUME_FILE",
    "RUN_FILE",
    "TrainResult",
    "TrainingError",
    "read_run",
    "reward_score",
    "train_dpo",
    "train_grpo",
    "train_reward",
    "train_sft",
]
