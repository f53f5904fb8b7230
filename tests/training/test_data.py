"""Training data and configuration: functions never straddle splits, duplicates go, files and flags combine."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfalign.training import config as cfg
from perfalign.training.cli import CONFIGS
from perfalign.training.data import DataError, load_splits, write_jsonl
from perfalign.training.trainers import DPOConfig, GRPOConfig


def pair(key: str, i: int, split: str = "train") -> dict[str, object]:
    return {
        "prompt": [{"role": "user", "content": f"optimize {key}"}],
        "chosen": [{"role": "assistant", "content": f"fast {key} {i}"}],
        "rejected": [{"role": "assistant", "content": f"slow {key} {i}"}],
        "margin": 0.5 * i,
        "function_key": key,
        "split": split,
    }


def test_a_function_is_never_in_both_splits(tmp_path: Path) -> None:
    rows = [pair(f"k{f}", i, "eval" if (f, i) == (3, 2) else "train") for f in range(10) for i in range(4)]
    write_jsonl(tmp_path / "a.jsonl", rows)
    splits = load_splits([tmp_path / "a.jsonl"], "pairs", eval_fraction=0.3)
    train = {r["function_key"] for r in splits.train}
    held = {r["function_key"] for r in splits.eval}
    assert not train & held
    assert "k3" in held  # one eval row pulls its whole function out of training
    assert train and len(held) >= 2


def test_excluded_functions_and_duplicates(tmp_path: Path) -> None:
    rows = [pair("a", 1), pair("a", 1), pair("b", 1), pair("c", 1)]
    write_jsonl(tmp_path / "p.jsonl", rows)
    splits = load_splits([tmp_path / "p.jsonl"], "pairs", exclude={"c"})
    assert splits.dropped_duplicates == 1
    assert {r["function_key"] for r in splits.train} == {"a", "b"}
    assert {r["function_key"] for r in splits.eval} == {"c"}
    again = load_splits([tmp_path / "p.jsonl"], "pairs", exclude={"c"})
    assert again.snapshot_id == splits.snapshot_id
    other = load_splits([tmp_path / "p.jsonl"], "pairs")
    assert other.snapshot_id != splits.snapshot_id  # a different split is different data


def test_min_margin_and_bad_rows(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "p.jsonl", [pair("a", 1), pair("b", 4)])
    assert len(load_splits([tmp_path / "p.jsonl"], "pairs", min_margin=1.0).train) == 1
    (tmp_path / "bad.jsonl").write_text('{"prompt": []}\n')
    with pytest.raises(DataError, match="bad.jsonl:1: a pairs row needs chosen, rejected"):
        load_splits([tmp_path / "bad.jsonl"], "pairs")
    (tmp_path / "garbled.jsonl").write_text('{"prompt": []}\nnot json\n')
    with pytest.raises(DataError, match="garbled.jsonl:2: not JSON"):
        load_splits([tmp_path / "garbled.jsonl"], "pairs")


def test_config_from_toml_yaml_and_flags(tmp_path: Path) -> None:
    toml = tmp_path / "train.toml"
    toml.write_text('base = "m.gguf"\nlearning_rate = 1e-4\nnum_generations = 8\n[dpo]\nbeta = 0.3\nlora_targets = ["q_proj"]\n')
    dpo = cfg.build(CONFIGS, "dpo", cfg.read_file(toml), {"beta": None, "max_steps": 7})
    assert (dpo.base, dpo.learning_rate, dpo.beta, dpo.max_steps, dpo.lora_targets) == ("m.gguf", 1e-4, 0.3, 7, ["q_proj"])
    grpo = cfg.build(CONFIGS, "grpo", cfg.read_file(toml), {})
    assert grpo.num_generations == 8  # shared top-level keys reach the command that knows them
    yaml_file = tmp_path / "t.yaml"
    yaml_file.write_text("dpo:\n  beta: 0.05\n  max_steps: 3\n")
    assert cfg.build(CONFIGS, "dpo", cfg.read_file(yaml_file), {"beta": 0.2}).beta == 0.2
    with pytest.raises(cfg.ConfigError, match="unknown key 'betta'"):
        cfg.build(CONFIGS, "dpo", {"dpo": {"betta": 1}}, {})
    with pytest.raises(cfg.ConfigError, match="max_steps must be a whole number"):
        cfg.build(CONFIGS, "dpo", {"dpo": {"max_steps": "many"}}, {})
    for cls in CONFIGS.values():
        for name in cls.__dataclass_fields__:
            assert cfg.help_of(cls, name), f"{cls.__name__}.{name} has no help"


def test_cli_reports_errors_in_one_line(tmp_path: Path) -> None:
    from perfalign.server.cli import main

    runner = CliRunner()
    result = runner.invoke(main, ["train", "dpo", "--data", str(tmp_path / "missing.jsonl"), "--base", str(tmp_path)])
    assert result.exit_code == 1
    assert "cannot read" in result.output and "Traceback" not in result.output
    bad = tmp_path / "c.toml"
    bad.write_text("[dpo]\nbeta = \n")
    result = runner.invoke(main, ["train", "dpo", "--config", str(bad)])
    assert result.exit_code == 1 and "not valid TOML" in result.output
    result = runner.invoke(main, ["train", "grpo", "--help"])
    assert result.exit_code == 0 and "--num-generations" in result.output and "--verify-workers" in result.output
    json.dumps(cfg.to_dict(GRPOConfig()))


def test_reviews_count_and_name_the_snapshot(tmp_path: Path) -> None:
    plain = [pair("a", 1), pair("b", 1), pair("c", 1)]
    write_jsonl(tmp_path / "plain.jsonl", plain)
    unreviewed = [{**row, "review": "unreviewed", "reviewer": None} for row in plain]
    write_jsonl(tmp_path / "unreviewed.jsonl", unreviewed)
    by_alice = [{**plain[0], "review": "approved", "reviewer": "alice"},
                {**plain[1], "review": "flipped", "reviewer": "alice"}, unreviewed[2]]
    write_jsonl(tmp_path / "alice.jsonl", by_alice)
    write_jsonl(tmp_path / "bob.jsonl", [{**by_alice[0], "reviewer": "bob"}, *by_alice[1:]])
    first = load_splits([tmp_path / "plain.jsonl"], "pairs")
    assert first.reviewed_rows == 0
    # Unreviewed rows name the same snapshot as rows exported before reviews existed.
    assert load_splits([tmp_path / "unreviewed.jsonl"], "pairs").snapshot_id == first.snapshot_id
    alice = load_splits([tmp_path / "alice.jsonl"], "pairs")
    assert alice.reviewed_rows == 2 and alice.reviews == {"approved": 1, "flipped": 1, "unreviewed": 1}
    assert alice.snapshot_id != first.snapshot_id
    assert load_splits([tmp_path / "bob.jsonl"], "pairs").snapshot_id != alice.snapshot_id


def test_the_cap_spreads_pairs_over_distinct_answers_and_keeps_the_larger_margins(tmp_path: Path) -> None:
    from perfalign.training.data import cap_pairs

    base = pair("a", 0)
    fast = [{"role": "assistant", "content": "fast 1"}, {"role": "assistant", "content": "fast 2"}]
    rows = [
        dict(base, chosen=[fast[c]], rejected=[{"role": "assistant", "content": f"bad {b}"}], margin=float(c + b))
        for c in range(2)
        for b in range(3)
    ]
    kept = cap_pairs(rows, 2)
    assert len(kept) == 2
    assert {r["chosen"][0]["content"] for r in kept} == {"fast 1", "fast 2"}  # not the same chosen twice
    assert {r["rejected"][0]["content"] for r in kept} == {"bad 2", "bad 1"}  # the larger margins, distinct
    assert cap_pairs(rows, 0) == rows and cap_pairs(rows, 10) == rows
    other = [pair("b", i) for i in range(3)]
    assert len(cap_pairs(rows + other, 2)) == 4  # per prompt, not overall


def test_a_full_disk_during_training_says_what_to_do_and_that_a_rerun_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    from perfalign.server.cli import main
    from perfalign.training import trainers

    def full(config: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", "runs/sft/checkpoints/checkpoint-3/optimizer.pt")

    monkeypatch.setattr(trainers, "train_sft", full)
    result = CliRunner().invoke(main, ["train", "sft", "--data", str(tmp_path / "sft.jsonl")])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "the disk is full writing runs/sft/checkpoints/checkpoint-3/optimizer.pt" in result.output
    assert "run the same command again" in result.output


def test_pairs_are_left_out_by_their_rejected_answers_status(tmp_path: Path) -> None:
    statuses = ["original", "incorrect", "original", "not_significant", None]
    rows = [dict(pair(f"k{i}", 1), rejected_status=status) for i, status in enumerate(statuses)]
    write_jsonl(tmp_path / "p.jsonl", rows)
    everything = load_splits([tmp_path / "p.jsonl"], "pairs")
    on_policy = load_splits([tmp_path / "p.jsonl"], "pairs", exclude_rejected=["original"])
    assert on_policy.excluded_by_rejected == 2 and everything.excluded_by_rejected == 0
    assert {r["function_key"] for r in on_policy.train} == {"k1", "k3", "k4"}  # a pair with no status is kept
    assert on_policy.snapshot_id != everything.snapshot_id  # other data, another snapshot
    write_jsonl(tmp_path / "q.jsonl", rows[:4])
    with pytest.raises(DataError, match=r"no pairs rows in .*q\.jsonl \(4 left out .*: incorrect, not_significant, original\)"):
        load_splits([tmp_path / "q.jsonl"], "pairs", exclude_rejected=["original", "incorrect", "not_significant"])


def test_an_unknown_rejected_status_is_refused_before_anything_loads(tmp_path: Path) -> None:
    from perfalign.training.trainers import train_dpo

    config = DPOConfig(data=[str(tmp_path / "absent.jsonl")], exclude_rejected=["orignal"])
    with pytest.raises(cfg.ConfigError, match="exclude_rejected: unknown status orignal; one of compile_error, .*original"):
        train_dpo(config)
