"""Training exports: the pair rules, the split by function, and files that `datasets` and TRL read as they are."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from perfalign.server.store import (
    KINDS,
    CandidateStore,
    StorePolicy,
    export,
    iter_dpo,
    iter_reward,
    iter_rl,
    iter_sft,
    split_for,
)
from perfalign.server.verdict import Status
from tests.store.store_data import (
    DOT,
    ROW_SUMS,
    ROW_SUMS_BROKEN,
    ROW_SUMS_FAST,
    ROW_SUMS_FAST2,
    ROW_SUMS_WRONG,
    candidate,
    populate,
    request,
    verdict,
)

PAIR_FIELDS = {"prompt", "chosen", "rejected", "chosen_speedup", "rejected_speedup", "margin", "function_key", "mode", "split"}


@pytest.fixture
def store(tmp_path: Path) -> CandidateStore:
    s = CandidateStore(tmp_path / "perfalign.db")
    yield s
    s.close()


def _pairs(rows: list[dict]) -> set[tuple[str, str]]:
    return {(r["chosen_id"], r["rejected_id"]) for r in rows}


def test_dpo_pairs_follow_the_rules(store: CandidateStore) -> None:
    ids = populate(store)
    rows = list(iter_dpo(store))
    # chosen: verified faster or accepted; rejected: incorrect, failed to compile, or correct but not faster
    # (a speed pair: its interval lies apart from the faster one's). fast vs fast2 (overlapping intervals)
    # and the user-rejected OpenMP candidate (no good candidate beside it) give no pair.
    assert _pairs(rows) == {
        (ids["fast"], ids["wrong"]),
        (ids["fast"], ids["broken"]),
        (ids["fast"], ids["same"]),
        (ids["fast2"], ids["wrong"]),
        (ids["fast2"], ids["broken"]),
        (ids["fast2"], ids["same"]),
    }
    for row in rows:
        assert row["chosen_speedup"] in (1.8, 1.75) and row["margin"] > 0
        assert row["rejected_speedup"] == (1.01 if row["rejected_id"] == ids["same"] else None)


def test_reward_pairs_rank_every_significant_difference(store: CandidateStore) -> None:
    ids = populate(store)
    pairs = _pairs(list(iter_reward(store)))
    assert (ids["fast"], ids["same"]) in pairs  # faster beats not_significant: intervals apart
    assert (ids["same"], ids["wrong"]) in pairs  # correct beats incorrect
    assert (ids["omp"], ids["omp_slow"]) in pairs  # a 3.2x beats a 0.05x, even if the user turned it down
    assert not {(ids["fast"], ids["fast2"]), (ids["fast2"], ids["fast"])} & pairs  # overlapping intervals
    assert not {(ids["wrong"], ids["broken"]), (ids["broken"], ids["wrong"])} & pairs  # two failures: no order
    assert len(pairs) == 9


def test_the_users_choice_between_two_fast_candidates_is_a_pair(store: CandidateStore) -> None:
    rid = store.record_request(request())
    kept = store.record_candidate(rid, candidate(ROW_SUMS_FAST, verdict(Status.FASTER, 1.8)))
    turned_down = store.record_candidate(rid, candidate(ROW_SUMS_FAST2, verdict(Status.FASTER, 1.85)))
    assert list(iter_dpo(store)) == []  # overlapping intervals, no user verdict yet
    store.record_feedback(turned_down, "rejected")
    assert list(iter_dpo(store)) == []  # still only timing separates them from the unjudged one
    store.record_feedback(kept, "accepted")
    assert _pairs(list(iter_dpo(store))) == {(kept, turned_down)}


def test_identical_code_is_never_paired_with_itself(store: CandidateStore) -> None:
    rid = store.record_request(request())
    store.record_candidate(rid, candidate(ROW_SUMS_FAST, verdict(Status.FASTER, 1.8)))
    store.record_candidate(rid, candidate(ROW_SUMS_FAST, verdict(Status.SLOWER, 0.5)))  # a noisy rerun
    assert list(iter_dpo(store)) == [] and list(iter_reward(store)) == []


def test_hash_only_requests_are_not_exported(store: CandidateStore, tmp_path: Path) -> None:
    with CandidateStore(tmp_path / "private.db", policy=StorePolicy(code_under=("/elsewhere",))) as private:
        populate(private)
        assert all(list(it(private)) == [] for it in (iter_dpo, iter_reward, iter_sft, iter_rl))


def _many_functions(store: CandidateStore, n: int) -> None:
    for i in range(n):
        original = ROW_SUMS.replace("row_sums", f"row_sums_{i}")
        for _ in range(2):
            rid = store.record_request(request(original, f"row_sums_{i}"))
            store.record_candidate(rid, candidate(ROW_SUMS_FAST.replace("row_sums", f"row_sums_{i}"), verdict(Status.FASTER, 1.8)))
            store.record_candidate(rid, candidate(ROW_SUMS_WRONG.replace("row_sums", f"row_sums_{i}"), verdict(Status.INCORRECT)))


def test_split_is_by_function_and_deterministic(store: CandidateStore, tmp_path: Path) -> None:
    _many_functions(store, 40)
    first = export(store, tmp_path / "a", eval_percent=30)
    second = export(store, tmp_path / "b", eval_percent=30)
    for kind in KINDS:
        assert (tmp_path / "a" / f"{kind}.jsonl").read_bytes() == (tmp_path / "b" / f"{kind}.jsonl").read_bytes()
    assert first.rows == second.rows and first.rows["dpo"] == 80
    assert first.splits["dpo"]["train"] > 0 and first.splits["dpo"]["eval"] > 0
    for kind in KINDS:
        splits: dict[str, set[str]] = {}
        for line in (tmp_path / "a" / f"{kind}.jsonl").read_text().splitlines():
            row = json.loads(line)
            splits.setdefault(row["function_key"], set()).add(row["split"])
            assert row["split"] == split_for(row["function_key"], 30)
        assert all(len(s) == 1 for s in splits.values()), kind
    # Reformatting a function does not move it to the other split.
    from perfalign.server.store import function_key

    assert split_for(function_key(ROW_SUMS)) == split_for(function_key(ROW_SUMS.replace("    ", "  ")))


def test_exports_load_with_datasets_in_the_shape_trl_expects(store: CandidateStore, tmp_path: Path) -> None:
    import datasets
    populate(store)
    result = export(store, tmp_path / "out", eval_percent=0)
    # every distinct faster rewrite is imitated, and is preferred over the correct one that is not faster
    assert result.rows == {"dpo": 6, "reward": 9, "sft": 2, "rl": 2, "repair": 0}

    for kind in ("dpo", "reward"):
        ds = datasets.load_dataset("json", data_files=str(result.files[kind]), split="train")
        assert PAIR_FIELDS <= set(ds.column_names)
        for row in ds:
            assert [m["role"] for m in row["prompt"]] == ["system", "user"]
            assert all(set(m) == {"role", "content"} for m in row["prompt"])
            for side in ("chosen", "rejected"):
                assert len(row[side]) == 1 and row[side][0]["role"] == "assistant"
                content = row[side][0]["content"]
                assert content.startswith("```c\n") and content.endswith("\n```")
            assert isinstance(row["margin"], float) and row["margin"] >= 0
            assert row["split"] == "train" and row["mode"] in ("serial", "openmp")

    sft = datasets.load_dataset("json", data_files=str(result.files["sft"]), split="train")
    assert [m["role"] for m in sft[0]["messages"]] == ["system", "user", "assistant"]
    assert ROW_SUMS_FAST in sft[0]["messages"][-1]["content"]  # the accepted candidate comes first
    assert ROW_SUMS_FAST2 in sft[1]["messages"][-1]["content"]  # every distinct faster rewrite is kept

    rl = datasets.load_dataset("json", data_files=str(result.files["rl"]), split="train")
    assert {"prompt", "source", "language", "function", "mode", "split"} <= set(rl.column_names)
    assert sorted(rl["function"]) == ["dot", "row_sums"]


def test_exports_are_conversational_for_trl(store: CandidateStore, tmp_path: Path) -> None:
    from trl import data_utils
    populate(store)
    result = export(store, tmp_path / "out")
    for kind in ("dpo", "reward", "sft", "rl"):
        for line in result.files[kind].read_text().splitlines():
            assert data_utils.is_conversational(json.loads(line)), kind


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_rl_source_is_one_compilable_file(store: CandidateStore, tmp_path: Path) -> None:
    populate(store)
    for row in iter_rl(store):
        src = tmp_path / f"{row['function']}.c"
        src.write_text(row["source"])
        flags = ["-fopenmp"] if row["mode"] == "openmp" else []
        proc = subprocess.run(["gcc", "-c", "-Wall", "-Werror", *flags, str(src), "-o", str(src.with_suffix(".o"))],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert row["language"] == "c" and row["function"] in row["source"]
    assert DOT in {r["source"].split("\n\n", 1)[1].rstrip() for r in iter_rl(store)}


def test_broken_and_wrong_candidates_are_never_chosen(store: CandidateStore) -> None:
    populate(store)
    for row in [*iter_dpo(store), *iter_reward(store), *iter_sft(store)]:
        text = json.dumps(row.get("chosen") or row.get("messages"))
        assert json.dumps(ROW_SUMS_BROKEN)[1:-1] not in text and json.dumps(ROW_SUMS_WRONG)[1:-1] not in text
