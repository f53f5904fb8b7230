"""The execution reward runs the real verifier on real C candidates; GRPO trains with it."""
from __future__ import annotations

import math
import os
import pickle
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from perfalign.server.verdict import Status, Verdict  # noqa: E402
from perfalign.training.rewards import (  # noqa: E402
    ExecutionReward,
    get_execution_reward,
    get_length_penalty,
    speed_reward,
)
from perfalign.training.selfplay import CORPUS_DIR  # noqa: E402

SOURCE = (CORPUS_DIR / "count_below_mean.c").read_text()
LINEAR = """size_t count_below_mean(const double *x, size_t n) {
    double sum = 0.0;
    for (size_t j = 0; j < n; j++) sum += x[j];
    double mean = sum / (double)n;
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i] < mean) count++;
    return count;
}"""
WRONG = LINEAR.replace("x[i] < mean", "x[i] > mean")
BROKEN = LINEAR.replace("return count;", "return count")


def fenced(code: str) -> list[dict[str, str]]:
    return [{"role": "assistant", "content": f"Here is a faster version:\n```c\n{code}\n```\n"}]


def columns(n: int) -> dict[str, list[str]]:
    return {"source": [SOURCE] * n, "language": ["c"] * n, "function": ["count_below_mean"] * n, "mode": ["serial"] * n}


@pytest.fixture(scope="module")
def scored() -> tuple[list[float | None], ExecutionReward]:
    reward = get_execution_reward(repetitions=5, workers=2, timeout_s=60)
    completions = [fenced(LINEAR), fenced(WRONG), fenced(BROKEN), [{"role": "assistant", "content": "I cannot help."}], fenced(LINEAR)]
    try:
        values = reward(completions, **columns(len(completions)))
    finally:
        reward.close()
    return values, reward


def test_faster_correct_code_earns_a_positive_reward(scored: tuple[list[float | None], ExecutionReward]) -> None:
    values, reward = scored
    verdicts = reward.last_verdicts
    assert verdicts[0] is not None and verdicts[0].status.value == "faster", verdicts[0]
    assert values[0] is not None and values[0] > 2.0  # a quadratic loop made linear: log2 speedup well above 1
    assert values[4] == values[0]  # the repeated completion is verified once and scored alike


def test_wrong_code_earns_a_little_broken_or_missing_code_nothing(
    scored: tuple[list[float | None], ExecutionReward],
) -> None:
    values, reward = scored
    statuses = [v.status.value for v in reward.last_verdicts[1:4] if v is not None]
    assert statuses == ["incorrect", "compile_error", "unsupported"]
    assert values[1:4] == [reward.incorrect_reward, 0.0, 0.0]
    assert 0.0 < reward.incorrect_reward < reward.correct_bonus


def test_the_reward_orders_compile_error_incorrect_correct_faster() -> None:
    broken = speed_reward(Verdict(Status.COMPILE_ERROR))
    unsafe = speed_reward(Verdict(Status.REJECTED_UNSAFE))
    wrong = speed_reward(Verdict(Status.INCORRECT))
    crashed = speed_reward(Verdict(Status.CRASH))
    slower = speed_reward(Verdict(Status.SLOWER, speedup=0.5, ci95=(0.45, 0.55)))
    same = speed_reward(Verdict(Status.NOT_SIGNIFICANT, speedup=1.04, ci95=(0.98, 1.1)))
    faster = speed_reward(Verdict(Status.FASTER, speedup=1.2, ci95=(1.08, 1.3)))
    assert broken == unsafe < wrong == crashed < same == slower < faster


def test_timing_noise_earns_nothing_and_speed_counts_from_the_intervals_low_end() -> None:
    # A not_significant candidate whose point speedup is high (a noisy timing) earns the correct level only.
    lucky = speed_reward(Verdict(Status.NOT_SIGNIFICANT, speedup=1.9, ci95=(0.7, 3.0)))
    plain = speed_reward(Verdict(Status.NOT_SIGNIFICANT, speedup=1.0, ci95=(0.9, 1.1)))
    assert lucky == plain
    # Two faster candidates with the same point speedup: the one the measurement supports better earns more.
    tight = speed_reward(Verdict(Status.FASTER, speedup=4.0, ci95=(3.8, 4.2)))
    loose = speed_reward(Verdict(Status.FASTER, speedup=4.0, ci95=(1.1, 9.0)))
    assert tight > loose
    assert tight == pytest.approx(0.5 + 0.5 + math.log2(3.8))
    # The clip holds for a huge speedup.
    assert speed_reward(Verdict(Status.FASTER, speedup=1e4, ci95=(9e3, 1.1e4)), max_reward=4.0) == 4.0


def test_rows_without_a_source_are_not_applicable() -> None:
    reward = get_execution_reward()
    assert reward([fenced(LINEAR)], source=[None], function=["count_below_mean"]) == [None]


def test_rewards_pickle_without_their_workers() -> None:
    reward = get_execution_reward(speedup_weight=2.0, workers=3)
    clone = pickle.loads(pickle.dumps(reward))
    assert clone.__name__ == "execution_reward" and clone.speedup_weight == 2.0 and clone.workers == 3
    penalty = pickle.loads(pickle.dumps(get_length_penalty(10)))
    assert penalty(["short", "x" * 15, "x" * 40]) == [0.0, -0.5, -1.0]


def test_grpo_trains_with_the_verifier_as_reward(tmp_path: Path) -> None:
    import trl  # noqa: F401
    from safetensors.torch import load_file

    from perfalign.training.trainers import train_grpo
    from perfalign.training.trainers import GRPOConfig
    from perfalign.training.data import write_jsonl
    from perfalign.training.modeling import build_tiny_model

    tiny = build_tiny_model(tmp_path / "tiny")
    prompt = [{"role": "user", "content": f"Optimize this function.\n```c\n{SOURCE}\n```"}]
    rows = [{"prompt": prompt, "function_key": "k1", "split": "train", **{k: v[0] for k, v in columns(1).items()}}]
    data = tmp_path / "rl.jsonl"
    write_jsonl(data, rows)
    config = GRPOConfig(
        base=str(tiny),
        output_dir=str(tmp_path / "run"),
        data=[str(data)],
        max_steps=2,
        learning_rate=1e-2,
        gradient_accumulation_steps=1,
        num_generations=4,
        max_completion_length=12,
        max_length=512,
        lora_r=4,
        lora_alpha=8,
        length_penalty_weight=1.0,
        length_limit_chars=8,
        repetitions=3,
    )
    result = train_grpo(config)
    assert result.steps == 2
    b = [w for k, w in load_file(str(result.adapter_dir / "adapter_model.safetensors")).items() if "lora_B" in k]
    assert any(float(w.abs().sum()) > 0 for w in b), "GRPO left the LoRA weights at their init"
    # random text never compiles: the execution reward gave 0, the length penalty made the difference
    assert result.metrics["mean_reward_last"] <= 0.0
