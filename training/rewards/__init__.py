"""Reward functions for online RL, in TRL's shape: the verifier's verdict, a length penalty, a reward model.

:func:`get_execution_reward` runs the real verifier on every completion and scores its verdict
(:func:`speed_reward` for a faster one); :func:`get_length_penalty` and :func:`get_reward_model_reward`
add the other terms GRPO may use. :func:`no_code_verdict` is the verdict on a completion
with no candidate in it (the server's ``extract_candidate`` says why), for self-play and the evaluation too.
"""
from ._functions import (
    BUILT_BUT_WRONG,
    ExecutionReward,
    LengthPenalty,
    RewardModelScore,
    completion_text,
    function_info,
    get_execution_reward,
    get_length_penalty,
    get_reward_model_reward,
    no_code_verdict,
    speed_reward,
)

__all__ = [
    "BUILT_BUT_WRONG",
    "ExecutionReward",
    "LengthPenalty",
    "RewardModelScore",
    "completion_text",
    "function_info",
    "get_execution_reward",
    "get_length_penalty",
    "get_reward_model_reward",
    "no_code_verdict",
    "speed_reward",
]
