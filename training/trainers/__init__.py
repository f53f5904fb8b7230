"""The trainers: SFT, DPO, a reward model and GRPO, each on TRL, each with its config beside it.

:func:`train_sft`, :func:`train_dpo`, :func:`train_reward` and :func:`train_grpo` train a LoRA adapter
on a base and save it with its run record (:data:`RUN_FILE`, read back by :func:`read_run`), so any
checkpoint can be traced to its data and settings; a rerun of the same command goes on from the newest
checkpoint. :func:`reward_score` is what a trained reward model says of one answer.
"""
from ._common import RESUME_FILE, RUN_FILE, TrainingError, TrainResult, read_run
from ._dpo import train_dpo
from ._grpo import train_grpo
from ._reward import reward_score, train_reward
from ._sft import train_sft

__all__ = [
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
