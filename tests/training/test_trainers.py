"""Each trainer runs a few steps on a tiny random Qwen2 model: its loss moves, its LoRA weights change,
and it leaves an adapter with the config and data snapshot that made it."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from perfalign.training.trainers import _common as common  # noqa: E402
from perfalign.training.trainers import DPOConfig, RewardConfig, SFTConfig  # noqa: E402
from perfalign.training.data import write_jsonl  # noqa: E402
from perfalign.training.modeling import build_tiny_model  # noqa: E402

pytestmark = pytest.mark.train

SLOW = "int sum(const int *a, int n) {\n    int s = 0;\n    for (int i = 0; i < n; i++) s += a[i];\n    return s;\n}"
FAST = "int sum(const int *restrict a, int n) {\n    long s = 0;\n#pragma omp simd reduction(+:s)\n    for (int i = 0; i < n; i++) s += a[i];\n    return (int)s;\n}"


def prompt(i: int) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": "You are an expert in high performance C."},
        {"role": "user", "content": f"Optimize this function.\n```c\n{SLOW.replace('sum', f'sum{i}')}\n```"},
    ]


def answer(code: str) -> list[dict[str, str]]:
    return [{"role": "assistant", "content": f"```c\n{code}\n```"}]


def pair_rows(n: int = 8) -> list[dict[str, object]]:
    return [
        {
            "prompt": prompt(i),
            "chosen": answer(FAST.replace("sum", f"sum{i}")),
            "rejected": answer(SLOW.replace("sum", f"sum{i}")),
            "chosen_speedup": 1.8,
            "rejected_speedup": 1.0,
            "margin": 0.8,
            "function_key": f"f{i:015d}",
            "mode": "serial",
            "split": "eval" if i == n - 1 else "train",
        }
        for i in range(n)
    ]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


def lora_weights(adapter_dir: Path) -> dict[str, object]:
    from safetensors.torch import load_file

    return load_file(str(adapter_dir / "adapter_model.safetensors"))


def check_run(result: common.TrainResult, steps: int) -> None:
    assert result.steps == steps
    assert len(result.losses) == steps
    assert result.losses[0] != result.losses[-1], "the loss did not move"
    record = common.read_run(result.adapter_dir)
    assert record["data_snapshot_id"] == result.snapshot_id and result.snapshot_id
    assert record["config"]["max_steps"] == steps
    weights = lora_weights(result.adapter_dir)
    b = [w for k, w in weights.items() if "lora_B" in k]
    assert b and any(float(w.abs().sum()) > 0 for w in b), "LoRA B weights stayed at their zero init"


def small(cls: type, tiny: Path, tmp_path: Path, data: Path, **kw: object):  # type: ignore[no-untyped-def]
    values: dict[str, object] = {
        "base": str(tiny),
        "output_dir": str(tmp_path / "run"),
        "data": [str(data)],
        "max_steps": 3,
        "learning_rate": 5e-3,
        "gradient_accumulation_steps": 1,
        "per_device_batch_size": 2,
        "max_length": 256,
        "lora_r": 4,
        "lora_alpha": 8,
    }
    return cls(**{**values, **kw})


def test_dpo_trains_and_records_its_data(tiny: Path, tmp_path: Path) -> None:
    from perfalign.training.trainers import train_dpo

    data = tmp_path / "pairs.jsonl"
    rows = pair_rows()
    rows[0].update(review="approved", reviewer="alice")  # as `prefs export` writes a reviewed pair
    rows[1].update(review="unreviewed", reviewer=None)
    write_jsonl(data, rows + pair_rows()[2:4])  # duplicates are dropped
    result = train_dpo(small(DPOConfig, tiny, tmp_path, data))
    check_run(result, 3)
    assert result.train_rows == 7 and result.eval_rows == 1
    record = common.read_run(result.adapter_dir)
    assert record["eval_function_keys"] == ["f000000000000007"]
    assert record["data_reviewed_rows"] == 1 and record["data_reviews"] == {"approved": 1, "unreviewed": 1}


def test_a_likelihood_term_holds_the_chosen_answers_up_under_dpo(tiny: Path, tmp_path: Path) -> None:
    from perfalign.training.trainers import train_dpo

    data = tmp_path / "pairs.jsonl"
    write_jsonl(data, pair_rows())

    def chosen_logp(sft_weight: float) -> float:
        result = train_dpo(small(DPOConfig, tiny, tmp_path / f"w{sft_weight:g}", data, max_steps=8, sft_weight=sft_weight))
        return float(result.metrics["chosen_logp_last"])

    with_term, without = chosen_logp(1.0), chosen_logp(0.0)
    assert with_term > without + 2.0
    with pytest.raises(ValueError, match="sft_weight"):
        train_dpo(small(DPOConfig, tiny, tmp_path, data, sft_weight=-1.0))


def test_sft_trains_on_the_fastest_rewrite(tiny: Path, tmp_path: Path) -> None:
    from perfalign.training.trainers import train_sft

    data = tmp_path / "sft.jsonl"
    write_jsonl(
        data,
        [{"messages": r["prompt"] + r["chosen"], "function_key": r["function_key"], "split": "train"} for r in pair_rows()],
    )
    check_run(train_sft(small(SFTConfig, tiny, tmp_path, data)), 3)


def test_reward_model_trains_and_reports_heldout_accuracy(tiny: Path, tmp_path: Path) -> None:
    from perfalign.training.trainers import train_reward

    data = tmp_path / "pairs.jsonl"
    write_jsonl(data, pair_rows())
    result = train_reward(small(RewardConfig, tiny, tmp_path, data))
    check_run(result, 3)
    assert 0.0 <= result.metrics["heldout_pairwise_accuracy"] <= 1.0
    assert result.metrics["heldout_pairs"] == 1


def test_the_reward_model_is_trained_with_each_pairs_margin(tiny: Path, tmp_path: Path) -> None:
    from perfalign.training.trainers import train_reward

    rows = pair_rows()
    for row in rows:
        row["margin"] = 4.0
    data = tmp_path / "pairs.jsonl"
    write_jsonl(data, rows)
    # At the start the reward model cannot tell chosen from rejected (difference about 0), so the first loss is
    # about -log sigmoid(-margin) = 4.02 with the margin and log 2 = 0.69 without it.
    with_margin = train_reward(small(RewardConfig, tiny, tmp_path / "with", data, max_steps=1))
    without = train_reward(small(RewardConfig, tiny, tmp_path / "without", data, max_steps=1, use_margin=False))
    assert with_margin.metrics["margin_used"] and not without.metrics["margin_used"]
    assert with_margin.losses[0] > 3.0 and without.losses[0] < 1.5


def test_pairs_per_prompt_are_capped_over_distinct_answers(tiny: Path, tmp_path: Path) -> None:
    from perfalign.training.trainers import train_dpo

    one = pair_rows()[0]
    rows = []
    for i in range(6):  # one faster answer against six different failures: six pairs for one prompt
        row = dict(one, rejected=answer(SLOW.replace("s += a[i]", f"s += a[i] + {i}")), margin=0.1 * i)
        rows.append(row)
    data = tmp_path / "pairs.jsonl"
    write_jsonl(data, rows + pair_rows()[1:3])
    result = train_dpo(small(DPOConfig, tiny, tmp_path, data, max_steps=1, max_pairs_per_prompt=2))
    assert result.train_rows == 2 + 2
    assert common.read_run(result.adapter_dir)["data_capped_pairs"] == 4


def test_no_data_is_a_clear_error(tiny: Path, tmp_path: Path) -> None:
    from perfalign.training.trainers import train_dpo

    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(Exception, match="no pairs rows"):
        train_dpo(small(DPOConfig, tiny, tmp_path, empty))
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"prompt": []}) + "\n")
    with pytest.raises(Exception, match="needs chosen, rejected"):
        train_dpo(small(DPOConfig, tiny, tmp_path, bad))


def test_dpo_runs_in_two_processes(tiny: Path, tmp_path: Path) -> None:
    """Nothing assumes one process: DPO in 2 CPU processes (torchrun, gloo) trains one adapter, reported once."""
    import subprocess
    import sys

    data = tmp_path / "pairs.jsonl"
    write_jsonl(data, pair_rows())
    perfalign = Path(sys.executable).with_name("perfalign")
    command = [
        str(Path(sys.executable).with_name("torchrun")), "--nproc_per_node", "2", "--master_port", "29517",
        str(perfalign), "train", "dpo", "--json", "--base", str(tiny), "--data", str(data),
        "--output-dir", str(tmp_path / "run"), "--max-steps", "2", "--learning-rate", "5e-3",
        "--per-device-batch-size", "1", "--gradient-accumulation-steps", "1", "--max-length", "256",
        "--lora-r", "4", "--lora-alpha", "8",
    ]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1", "ACCELERATE_USE_CPU": "1"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    reports = [line for line in done.stdout.splitlines() if line.startswith('{"')]  # not the trainer's log dicts
    assert len(reports) == 1, done.stdout  # the main process reports, once
    result = json.loads(reports[0])
    assert result["steps"] == 2
    record = common.read_run(tmp_path / "run" / "adapter")
    assert record["processes"] == 2
    weights = lora_weights(tmp_path / "run" / "adapter")
    assert any(float(w.abs().sum()) > 0 for k, w in weights.items() if "lora_B" in k)


def sft_data(tmp_path: Path) -> Path:
    data = tmp_path / "sft.jsonl"
    write_jsonl(
        data,
        [{"messages": r["prompt"] + r["chosen"], "function_key": r["function_key"], "split": "train"} for r in pair_rows()],
    )
    return data


def test_a_run_stopped_at_its_time_limit_resumes_where_it_stopped(tiny: Path, tmp_path: Path) -> None:
    from perfalign.training.trainers import train_sft

    data = sft_data(tmp_path)
    stopped = train_sft(small(SFTConfig, tiny, tmp_path, data, max_steps=6, time_limit_s=1e-6))
    assert not stopped.complete and stopped.steps == 1 and "run the same command again" in stopped.summary()
    assert (tmp_path / "run" / "checkpoints" / "checkpoint-1" / "trainer_state.json").is_file()
    resumed = train_sft(small(SFTConfig, tiny, tmp_path, data, max_steps=6))
    assert resumed.complete and resumed.resumed_from == 1 and resumed.steps == 6
    assert common.read_run(resumed.adapter_dir)["result"]["resumed_from"] == 1
    # more steps later: the run goes on from its last checkpoint, not from the start
    longer = train_sft(small(SFTConfig, tiny, tmp_path, data, max_steps=8))
    assert longer.resumed_from == 6 and longer.steps == 8
    kept = sorted(p.name for p in (tmp_path / "run" / "checkpoints").glob("checkpoint-*"))
    assert kept == ["checkpoint-6", "checkpoint-8"]  # the newest two: a long run does not fill the disk


def test_checkpoints_of_another_run_are_refused_unless_discarded(tiny: Path, tmp_path: Path) -> None:
    from perfalign.training.trainers import train_sft

    data = sft_data(tmp_path)
    train_sft(small(SFTConfig, tiny, tmp_path, data, max_steps=2))
    with pytest.raises(common.TrainingError, match=r"another run \(.*lora_r.*--no-resume"):
        train_sft(small(SFTConfig, tiny, tmp_path, data, max_steps=2, lora_r=8))
    fresh = train_sft(small(SFTConfig, tiny, tmp_path, data, max_steps=2, lora_r=8, resume=False))
    assert fresh.resumed_from == 0 and fresh.steps == 2


def test_a_checkpoint_saved_before_a_setting_existed_resumes_while_it_stays_at_its_default(
    tiny: Path, tmp_path: Path
) -> None:
    from perfalign.training.trainers import train_sft

    data = sft_data(tmp_path)
    train_sft(small(SFTConfig, tiny, tmp_path, data, max_steps=4, time_limit_s=1e-6))
    marker = tmp_path / "run" / "checkpoints" / common.RESUME_FILE
    identity = json.loads(marker.read_text())
    del identity["config"]["completion_only_loss"]  # as written by a perfalign that did not have the setting yet
    marker.write_text(json.dumps(identity))
    with pytest.raises(common.TrainingError, match=r"another run \(completion_only_loss differ\)"):
        train_sft(small(SFTConfig, tiny, tmp_path, data, max_steps=4, completion_only_loss=False))
    resumed = train_sft(small(SFTConfig, tiny, tmp_path, data, max_steps=4))
    assert resumed.resumed_from == 1 and resumed.steps == 4
