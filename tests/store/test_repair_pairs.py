"""Repair pairs: which answers of a feedback round fixed the candidate they were shown, and their export."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfalign.server.records import CandidateRecord
from perfalign.server.store import CandidateStore, export, repair_pairs
from perfalign.server.verdict import Status
from tests.store.store_data import (
    ROW_SUMS_BROKEN,
    ROW_SUMS_FAST,
    ROW_SUMS_FAST2,
    ROW_SUMS_WRONG,
    candidate,
    request,
    verdict,
)

SAME_SPEED = ROW_SUMS_FAST.replace("double s = 0.0;", "double s = 0;")


@pytest.fixture
def store(tmp_path: Path) -> CandidateStore:
    s = CandidateStore(tmp_path / "prefs.db")
    yield s
    s.close()


def answer(code: str, status: Status, speedup: float | None, parent: str, kind: str) -> CandidateRecord:
    record = candidate(code, verdict(status, speedup))
    record.round, record.parent_id, record.round_kind = 2, parent, kind
    record.round_feedback = f"{kind}: the verifier said {status.value}"
    return record


def test_an_answer_that_fixed_its_candidate_is_a_pair_and_the_others_are_not(store: CandidateStore,
                                                                             tmp_path: Path) -> None:
    rid = store.record_request(request())
    broken = store.record_candidate(rid, candidate(ROW_SUMS_BROKEN, verdict(Status.COMPILE_ERROR)))
    wrong = store.record_candidate(rid, candidate(ROW_SUMS_WRONG, verdict(Status.INCORRECT)))
    same = store.record_candidate(rid, candidate(SAME_SPEED, verdict(Status.NOT_SIGNIFICANT, 1.01)))
    repaired = store.record_candidate(rid, answer(ROW_SUMS_FAST, Status.FASTER, 1.8, broken, "repair"))
    # Still wrong: nothing was fixed.
    store.record_candidate(rid, answer(ROW_SUMS_WRONG + "\n", Status.INCORRECT, None, wrong, "repair"))
    improved = store.record_candidate(rid, answer(ROW_SUMS_FAST2, Status.FASTER, 1.7, same, "improve"))
    pairs = repair_pairs(store.candidates_of(rid))
    assert {(p.rejected.id, p.chosen.id) for p in pairs} == {(broken, repaired), (same, improved)}
    assert all(p.margin > 0 for p in pairs)

    # The user rejected the improvement: it fixes nothing.
    store.record_feedback(improved, "rejected")
    result = export(store, tmp_path / "out", kinds=("repair",), eval_percent=0)
    rows = [json.loads(line) for line in result.files["repair"].read_text().splitlines()]
    assert result.rows == {"repair": 1}
    [row] = rows
    assert (row["rejected_id"], row["chosen_id"], row["kind"], row["split"]) == (broken, repaired, "repair", "train")
    assert row["prompt"][:2] == request().prompt_messages
    assert row["prompt"][2] == {"role": "assistant", "content": f"```c\n{ROW_SUMS_BROKEN}\n```"}
    assert row["prompt"][3] == {"role": "user", "content": "repair: the verifier said faster"}
    assert row["chosen"] == [{"role": "assistant", "content": f"```c\n{ROW_SUMS_FAST}\n```"}]
    assert row["messages"] == row["prompt"] + row["chosen"]
    assert (row["rejected_status"], row["chosen_status"], row["chosen_speedup"]) == ("compile_error", "faster", 1.8)


def test_first_round_candidates_make_no_repair_pairs(store: CandidateStore) -> None:
    rid = store.record_request(request())
    store.record_candidate(rid, candidate(ROW_SUMS_BROKEN, verdict(Status.COMPILE_ERROR)))
    store.record_candidate(rid, candidate(ROW_SUMS_FAST, verdict(Status.FASTER, 1.8)))
    assert repair_pairs(store.candidates_of(rid)) == []


def test_reviews_decide_which_repair_pairs_are_exported(store: CandidateStore, tmp_path: Path) -> None:
    rid = store.record_request(request())
    broken = store.record_candidate(rid, candidate(ROW_SUMS_BROKEN, verdict(Status.COMPILE_ERROR)))
    repaired = store.record_candidate(rid, answer(ROW_SUMS_FAST, Status.FASTER, 1.8, broken, "repair"))
    same = store.record_candidate(rid, candidate(SAME_SPEED, verdict(Status.NOT_SIGNIFICANT, 1.01)))
    improved = store.record_candidate(rid, answer(ROW_SUMS_FAST2, Status.FASTER, 1.7, same, "improve"))

    def exported(**options: object) -> list[tuple[str, str, str]]:
        result = export(store, tmp_path / "out", kinds=("repair",), eval_percent=0, **options)  # type: ignore[arg-type]
        rows = [json.loads(line) for line in result.files["repair"].read_text().splitlines()]
        return sorted((r["rejected_id"], r["chosen_id"], r["review"]) for r in rows)

    assert exported() == sorted([(broken, repaired, "unreviewed"), (same, improved, "unreviewed")])
    assert exported(approved_only=True) == []
    store.record_review(repaired, "approve", other_id=broken, reviewer="alice")
    assert exported(approved_only=True) == [(broken, repaired, "approved")]
    # An excluded answer is never learned from; a repair turned round no longer shows a repair.
    store.record_review(improved, "exclude", reviewer="alice", applies_to="repair")
    store.record_review(repaired, "prefer_other", other_id=broken, reviewer="bob")
    assert exported() == []
