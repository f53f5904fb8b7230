"""Self-play and evaluation end to end with the real verifier; the model is a replay of fixed answers."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from perfalign.training import evaluate, selfplay
from perfalign.training.data import load_splits, read_jsonl
from perfalign.training.evaluate import EvalConfig
from perfalign.training.selfplay import SelfPlayConfig

CORPUS_FILE = selfplay.CORPUS_DIR / "count_below_mean.c"
FAST = """```c
size_t count_below_mean(const double *x, size_t n) {
    double sum = 0.0;
    for (size_t j = 0; j < n; j++) sum += x[j];
    double mean = sum / (double)n;
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i] < mean) count++;
    return count;
}
```"""
WRONG = FAST.replace("x[i] < mean", "x[i] > mean")
CHATTER = "Sure! The function is already optimal."


class Replay:
    """A sampler that answers every prompt with the same fixed completions, in order."""

    def __init__(self, name: str, answers: list[str]) -> None:
        self.name = name
        self.answers = answers
        self.prompts: list[list[dict[str, str]]] = []

    def generate(self, messages: list[dict[str, str]], n: int, **kw: object) -> list[str]:
        self.prompts.append(messages)
        return [self.answers[i % len(self.answers)] for i in range(n)]

    def close(self) -> None:
        pass


def test_selfplay_turns_verdicts_into_pairs(tmp_path: Path) -> None:
    sampler = Replay("replay", [FAST, WRONG, CHATTER])
    config = SelfPlayConfig(corpus=[str(CORPUS_FILE)], output=str(tmp_path / "sp" / "pairs.jsonl"), samples=3,
                            repetitions=5, min_time_ms=1.0, verify_workers=2)
    result = selfplay.run(config, sampler=sampler)
    assert result.functions == 1 and result.candidates == 3
    assert result.statuses == {"faster": 1, "incorrect": 1, "unsupported": 1}
    assert "count_below_mean" in sampler.prompts[0][-1]["content"]  # the server's prompt, with the function
    pairs = read_jsonl(tmp_path / "sp" / "pairs.jsonl")
    assert len(pairs) == 1  # faster over incorrect; the chatter has no code and is neither
    pair = pairs[0]
    assert "count++" in pair["chosen"][0]["content"] and "x[i] > mean" in pair["rejected"][0]["content"]
    assert pair["chosen_speedup"] > 1.5 and pair["rejected_status"] == "incorrect"
    rl = read_jsonl(tmp_path / "sp" / "rl.jsonl")
    assert rl[0]["function"] == "count_below_mean" and "double sum" in rl[0]["source"]
    sft = read_jsonl(tmp_path / "sp" / "sft.jsonl")
    assert sft[0]["messages"][-1]["role"] == "assistant"
    # the trainers read self-play output like the store's exports
    assert len(load_splits([tmp_path / "sp" / "pairs.jsonl"], "pairs").train) == 1
    # a reviewer reads why a completion gave no candidate
    [chatter] = [c for c in read_jsonl(tmp_path / "sp" / "candidates.jsonl") if c["status"] == "unsupported"]
    assert "the reply holds no C or C++ function definition" in chatter["detail"]


def test_the_original_returned_unchanged_is_recorded_as_such(tmp_path: Path) -> None:
    unchanged = "```c\n" + CORPUS_FILE.read_text().split("*/\n", 1)[1] + "```"
    config = SelfPlayConfig(corpus=[str(CORPUS_FILE)], output=str(tmp_path / "sp" / "pairs.jsonl"), samples=1,
                            repetitions=3, min_time_ms=1.0, verify_workers=1)
    selfplay.run(config, sampler=Replay("replay", [unchanged]))
    [candidate] = read_jsonl(tmp_path / "sp" / "candidates.jsonl")
    assert candidate["status"] == "unsupported" and "identical to the original" in candidate["detail"]


def test_eval_scores_base_and_trained_side_by_side(tmp_path: Path) -> None:
    config = EvalConfig(functions=[str(CORPUS_FILE)], samples=2, ks=[1, 2], repetitions=5, min_time_ms=1.0,
                        output_dir=str(tmp_path / "eval"), adapter="x")
    samplers = {"base": Replay("base", [WRONG, CHATTER]), "trained": Replay("trained", [FAST, WRONG])}
    result = evaluate.run(config, samplers=samplers)
    base, trained = result.reports["base"], result.reports["trained"]
    assert base.passed[1] == 0.0 and base.speedup[2] == 0.0 and base.build[1] == 0.5
    assert trained.passed[1] == 0.5 and trained.passed[2] == 1.0
    assert trained.speedup[2] > 1.5 and trained.speedup[1] == pytest.approx(trained.speedup[2] / 2)
    assert trained.suggestions == 1 and trained.suggestion_geomean and trained.suggestion_geomean > 1.5
    out = tmp_path / "eval"
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["trained"]["pass@2"] == 1.0
    assert "| speedup_n@2 |" in (out / "table.md").read_text()
    assert (out / "plot.svg").read_text().startswith("<svg")
    assert read_jsonl(out / "functions.jsonl")[0]["function"] == "count_below_mean"


def test_eval_of_an_exported_adapter_writes_its_model_card(tmp_path: Path) -> None:
    """The card names the training run and the export check, and carries this evaluation's table and plot."""
    run_dir = tmp_path / "dpo"
    (run_dir / "adapter").mkdir(parents=True)
    run = {"command": "dpo", "data_snapshot_id": "pairs-abc", "config": {"max_steps": 4},
           "result": {"steps": 4, "train_rows": 2, "seconds_per_step": 28.7, "peak_memory_gb": 5.6, "losses": [0.69, 0.32]}}
    (run_dir / "adapter" / "perfalign-run.json").write_text(json.dumps(run))
    gguf = tmp_path / "adapter.gguf"
    gguf.write_bytes(b"GGUF")
    export = {"lineage": {"base_model": "qwen2.5-coder-0.5b", "base_gguf": "/models/base.gguf"},
              "check": {"passed": True, "sequences": 2}, "training_config": {"output_dir": str(run_dir)}}
    gguf.with_suffix(".json").write_text(json.dumps(export))
    config = EvalConfig(functions=[str(CORPUS_FILE)], samples=2, ks=[1, 2], repetitions=5, min_time_ms=1.0,
                        output_dir=str(tmp_path / "eval"), adapter=str(gguf))
    result = evaluate.run(config, samplers={"base": Replay("base", [WRONG]), "trained": Replay("trained", [FAST])})
    assert result.card == tmp_path / "eval" / "MODEL_CARD.md"
    card = result.card.read_text()
    assert "`perfalign train dpo` on data snapshot `pairs-abc`" in card and "loss 0.6900 → 0.3200" in card
    assert "| speedup_n@2 |" in card and "![base vs trained](plot.svg)" in card and "passed" in card
    assert json.loads((tmp_path / "eval" / "card.json").read_text())["base"] == "qwen2.5-coder-0.5b"
    assert "model card" in result.summary()


def test_an_adapter_is_checked_before_the_base_is_evaluated(tmp_path: Path) -> None:
    """A registered adapter resolves to its GGUF; a wrong one fails at once, not after the base's long run."""
    from perfalign.server import registry
    from perfalign.training import modeling

    base = tmp_path / "base.gguf"
    base.write_bytes(b"GGUF" + bytes(16))
    adapter = tmp_path / "adapter.gguf"
    adapter.write_bytes(b"GGUF" + bytes(16))
    registry.register_gguf("eval-base", base)
    registry.register_adapter("eval-trained", "eval-base", adapter, {})
    assert modeling.gguf_adapter("eval-trained") == adapter.resolve()
    modeling.check_adapter("eval-base", "eval-trained", "llama-cpp")
    with pytest.raises(modeling.SamplingError, match="not a GGUF adapter"):
        modeling.check_adapter("eval-base", "no-such-adapter", "llama-cpp")
    config = EvalConfig(functions=[str(CORPUS_FILE)], base="eval-base", adapter="no-such-adapter", engine="llama-cpp",
                        output_dir=str(tmp_path / "eval"))
    with pytest.raises(modeling.SamplingError):
        evaluate.run(config)
    assert not (tmp_path / "eval" / "metrics.json").exists()


REFERENCE = """#include <stddef.h>

size_t count_below_mean(const double *x, size_t n) {
    double total = 0.0;
    for (size_t k = 0; k < n; k++) total += x[k];
    const double mean = total / (double)n;
    size_t below = 0;
    for (size_t k = 0; k < n; k++) below += x[k] < mean;
    return below;
}
"""


def test_a_manifest_plays_its_train_rows_and_turns_each_reference_into_pairs(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "cbm.c").write_text(CORPUS_FILE.read_text())
    (corpus / "cbm.ref.c").write_text(REFERENCE)
    rows = [
        {"path": "cbm.c", "function": "count_below_mean", "mode": "serial", "reference": "cbm.ref.c", "split": "train",
         "family": "recomputed_mean"},
        {"path": "cbm.c", "function": "count_below_mean", "mode": "openmp", "split": "eval", "family": "held_out"},
    ]
    (corpus / "manifest.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    sampler = Replay("replay", [FAST, WRONG])
    config = SelfPlayConfig(manifest=str(corpus / "manifest.jsonl"), output=str(tmp_path / "sp" / "pairs.jsonl"),
                            samples=2, repetitions=5, min_time_ms=1.0, verify_workers=2, modes=["openmp"])
    result = selfplay.run(config, sampler=sampler)
    # Only the train row is played, in its own mode; the reference is not counted as a sample.
    assert result.functions == 1 and result.candidates == 2 and len(sampler.prompts) == 1
    assert result.statuses == {"faster": 1, "incorrect": 1}
    pairs = read_jsonl(tmp_path / "sp" / "pairs.jsonl")
    original = [p for p in pairs if p["rejected_status"] == "original"]
    assert len(original) == 1 and "below += x[k] < mean" in original[0]["chosen"][0]["content"]
    assert "for (size_t i = 0; i < n; i++)" in original[0]["rejected"][0]["content"]  # the original function
    assert original[0]["margin"] > 0 and original[0]["mode"] == "serial" and original[0]["split"] == "train"
    # the sample and the reference beat the wrong one
    assert sum(p["rejected_status"] == "incorrect" for p in pairs) == 2
    # Every distinct verified rewrite is an SFT row: the sample's and the reference's.
    sft = read_jsonl(tmp_path / "sp" / "sft.jsonl")
    assert sorted(r["model"] for r in sft) == ["reference", "replay"]
    candidates = read_jsonl(tmp_path / "sp" / "candidates.jsonl")
    assert [c["model"] for c in candidates] == ["replay", "replay", "reference"]


def test_a_manifest_written_family_by_family_is_played_a_family_at_a_time_in_turn(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    files = {"recomputed": ["count_below_mean", "running_mean"], "strided": ["dot_strided", "max_abs_index"]}
    rows = []
    for family, names in files.items():
        for name in names:
            (corpus / f"{name}.c").write_text((selfplay.CORPUS_DIR / f"{name}.c").read_text())
            rows.append({"path": f"{name}.c", "function": name, "mode": "serial", "split": "train", "family": family})
    (corpus / "manifest.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    sampler = Replay("replay", [CHATTER])
    config = SelfPlayConfig(manifest=str(corpus / "manifest.jsonl"), output=str(tmp_path / "sp" / "pairs.jsonl"),
                            samples=1, repetitions=3, min_time_ms=1.0, verify_workers=1, max_functions=2)
    selfplay.run(config, sampler=sampler)
    # Stopped after two functions, it has sampled both families, not the first family twice.
    played = [next(n for names in files.values() for n in names if f"{n}(" in p[-1]["content"])
              for p in sampler.prompts]
    assert played == ["count_below_mean", "dot_strided"]


@pytest.mark.parametrize(("mode", "finished_when_sampled"), [("openmp", [0, 1]), ("serial", [0, 0])])
def test_openmp_candidates_are_verified_with_nothing_sampled_meanwhile(
        tmp_path: Path, mode: str, finished_when_sampled: list[int]) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    rows = []
    for name in ("count_below_mean", "clamp_sum"):
        (corpus / f"{name}.c").write_text((selfplay.CORPUS_DIR / f"{name}.c").read_text())
        rows.append({"path": f"{name}.c", "function": name, "mode": mode, "split": "train", "family": name})
    (corpus / "manifest.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    done = tmp_path / "sp" / "done.jsonl"
    finished: list[int] = []

    class Watch(Replay):
        def generate(self, messages: list[dict[str, str]], n: int, **kw: object) -> list[str]:
            finished.append(len(read_jsonl(done)) if done.is_file() else 0)
            return super().generate(messages, n, **kw)

    config = SelfPlayConfig(manifest=str(corpus / "manifest.jsonl"), output=str(tmp_path / "sp" / "pairs.jsonl"),
                            samples=1, repetitions=3, min_time_ms=1.0, verify_workers=2)
    selfplay.run(config, sampler=Watch("replay", [CHATTER]))
    # An OpenMP function's verification (timed on every thread) is over before the next one is sampled; a serial
    # one's overlaps it.
    assert finished == finished_when_sampled


def test_a_manifest_row_naming_a_missing_file_is_refused_with_its_line(tmp_path: Path) -> None:
    from perfalign.training.data import DataError

    manifest = tmp_path / "manifest.jsonl"
    manifest.write_text(json.dumps({"path": "nope.c", "function": "f", "mode": "serial", "split": "train"}) + "\n")
    config = SelfPlayConfig(manifest=str(manifest), output=str(tmp_path / "sp" / "pairs.jsonl"))
    with pytest.raises(DataError, match=r"manifest.jsonl:1: no such file .*nope.c"):
        selfplay.run(config, sampler=Replay("replay", [FAST]))
    manifest.write_text(json.dumps({"path": "nope.c", "function": "f", "mode": "gpu", "split": "train"}) + "\n")
    with pytest.raises(DataError, match=r"manifest.jsonl:1: mode 'gpu' is not one of serial, openmp"):
        selfplay.run(config, sampler=Replay("replay", [FAST]))


class Seeds(Replay):
    """Replay that records each call's seed, and fails on the call numbered ``fail_at`` (a killed run)."""

    def __init__(self, answers: list[str], fail_at: int = 0) -> None:
        super().__init__("replay", answers)
        self.seeds: list[int] = []
        self.fail_at = fail_at

    def generate(self, messages: list[dict[str, str]], n: int, **kw: object) -> list[str]:
        if self.fail_at and len(self.seeds) + 1 == self.fail_at:
            raise RuntimeError("the model server went away")
        self.seeds.append(int(kw["seed"]))  # type: ignore[arg-type]
        return super().generate(messages, n, **kw)


class Slow(Seeds):
    """Replay that takes ``delay_s`` to answer: a time limit passes while the first function is sampled."""

    def __init__(self, answers: list[str], delay_s: float) -> None:
        super().__init__(answers)
        self.delay_s = delay_s

    def generate(self, messages: list[dict[str, str]], n: int, **kw: object) -> list[str]:
        time.sleep(self.delay_s)
        return super().generate(messages, n, **kw)


def test_a_time_limit_ends_the_run_between_functions_and_the_same_command_goes_on(tmp_path: Path) -> None:
    corpus = [str(CORPUS_FILE), str(selfplay.CORPUS_DIR / "clamp_sum.c")]
    config = SelfPlayConfig(corpus=corpus, output=str(tmp_path / "sp" / "pairs.jsonl"), samples=1,
                            repetitions=3, min_time_ms=1.0,
                            verify_workers=1, time_limit_s=0.5)
    first = Slow([CHATTER], delay_s=1.0)
    result = selfplay.run(config, sampler=first, deadline=time.monotonic() + config.time_limit_s)
    assert len(first.seeds) == 1 and "stopped at the time limit" in result.skipped
    assert len(read_jsonl(tmp_path / "sp" / "done.jsonl")) == 1  # the function it started is finished and on file
    again = Seeds([CHATTER])
    assert selfplay.run(config, sampler=again).resumed == 1 and len(again.seeds) == 1


def test_rounds_use_fresh_seeds_and_an_interrupted_run_resumes(tmp_path: Path) -> None:
    corpus = [str(CORPUS_FILE), str(selfplay.CORPUS_DIR / "clamp_sum.c")]
    config = SelfPlayConfig(corpus=corpus, output=str(tmp_path / "sp" / "pairs.jsonl"), samples=1,
                            repetitions=3, min_time_ms=1.0,
                            verify_workers=1, rounds=2)
    first = Seeds([CHATTER], fail_at=3)  # stops in the second round, after its first function was sampled
    with pytest.raises(RuntimeError, match="went away"):
        selfplay.run(config, sampler=first)
    assert len(first.seeds) == 2
    done = read_jsonl(tmp_path / "sp" / "done.jsonl")
    assert [r["round"] for r in done] == [0, 0]  # the whole first round is on file
    again = Seeds([CHATTER])
    result = selfplay.run(config, sampler=again)
    assert result.resumed == 2 and len(again.seeds) == 2  # only the second round is sampled
    assert not set(again.seeds) & set(first.seeds)  # fresh seeds in the second round
    candidates = read_jsonl(tmp_path / "sp" / "candidates.jsonl")
    assert sorted(c["round"] for c in candidates) == [1, 1, 2, 2]
    # The same command once more has nothing left to do; another configuration starts afresh.
    assert selfplay.run(config, sampler=Seeds([CHATTER])).candidates == 0
    fresh = selfplay.run(SelfPlayConfig(**{**config.__dict__, "rounds": 1, "seed": 7}), sampler=Seeds([CHATTER]))
    assert fresh.resumed == 0 and fresh.candidates == 2
    assert len(read_jsonl(tmp_path / "sp" / "candidates.jsonl")) == 2


class Repairs(Replay):
    """Replay that answers every feedback turn with ``fix``; with ``fail`` its first batch of turns fails."""

    def __init__(self, answers: list[str], fix: str, fail: bool = False) -> None:
        super().__init__("replay", answers)
        self.fix = fix
        self.fail = fail
        self.turns: list[list[dict[str, str]]] = []

    def generate_turns(self, turns: list[list[dict[str, str]]], seeds: list[int], **kw: object) -> list[str]:
        if self.fail:
            raise RuntimeError("the model server went away")
        assert len(seeds) == len(turns)
        self.turns += turns
        return [self.fix] * len(turns)


def test_failed_samples_are_shown_what_went_wrong_and_a_fixed_answer_is_a_repair_pair(tmp_path: Path) -> None:
    config = SelfPlayConfig(corpus=[str(CORPUS_FILE)], output=str(tmp_path / "sp" / "pairs.jsonl"), samples=3,
                            repetitions=5, min_time_ms=1.0, verify_workers=2, repairs=4)
    sampler = Repairs([WRONG, CHATTER, WRONG], fix=FAST)
    result = selfplay.run(config, sampler=sampler)
    # one turn per distinct failure: the wrong code (sampled twice) and the reply without a function
    assert len(sampler.turns) == 2
    wrong_turn = next(t for t in sampler.turns if "x[i] > mean" in t[-2]["content"])
    assert wrong_turn[:2] == sampler.prompts[0]  # the first prompt, the failed answer, then the feedback
    assert "computes something different" in wrong_turn[-1]["content"]
    assert "call: count_below_mean(x, n) with x = {" in wrong_turn[-1]["content"]  # the failing call written out
    assert result.repairs == 2 and result.repaired == 2 and result.candidates == 5
    [pair] = read_jsonl(tmp_path / "sp" / "repair.jsonl")  # the reply without code has nothing to be preferred to
    assert pair["prompt"] == wrong_turn and pair["kind"] == "repair"
    assert "count++" in pair["chosen"][0]["content"] and "x[i] > mean" in pair["rejected"][0]["content"]
    assert pair["chosen_status"] == "faster" and pair["rejected_status"] == "incorrect"
    assert pair["messages"] == [*wrong_turn, *pair["chosen"]]
    candidates = read_jsonl(tmp_path / "sp" / "candidates.jsonl")
    assert [(c["parent"], c["feedback"]) for c in candidates] == [(None, None)] * 3 + [(0, "repair"), (1, "repair")]
    # the fixed answer is a rewrite of the function like any sample: preferred to the wrong ones, imitated once
    assert any("count++" in p["chosen"][0]["content"] for p in read_jsonl(tmp_path / "sp" / "pairs.jsonl"))
    assert len(read_jsonl(tmp_path / "sp" / "sft.jsonl")) == 1


def test_a_run_stopped_while_its_repairs_are_sampled_redoes_that_function(tmp_path: Path) -> None:
    config = SelfPlayConfig(corpus=[str(CORPUS_FILE)], output=str(tmp_path / "sp" / "pairs.jsonl"), samples=1,
                            repetitions=3, min_time_ms=1.0, verify_workers=1, repairs=1)
    with pytest.raises(RuntimeError, match="went away"):
        selfplay.run(config, sampler=Repairs([WRONG], fix=FAST, fail=True))
    assert read_jsonl(tmp_path / "sp" / "done.jsonl") == []  # its repairs were never sampled: not done
    again = Repairs([WRONG], fix=FAST)
    result = selfplay.run(config, sampler=again)
    assert len(again.prompts) == 1 and len(again.turns) == 1 and result.repaired == 1
    assert len(read_jsonl(tmp_path / "sp" / "repair.jsonl")) == 1
