"""Reviews: what a reviewer decides is kept with its history, the latest wins, and exports follow it."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from perfalign.server import errors
from perfalign.server.store import CandidateStore, ReviewIndex, iter_dpo, iter_reward, iter_sft, review_items
from tests.store.store_data import populate

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def logged(tmp_path: Path) -> tuple[CandidateStore, dict[str, str]]:
    store = CandidateStore(tmp_path / "perfalign.db")
    ids = populate(store)
    yield store, ids
    store.close()


def pairs_of(rows: list[dict[str, object]]) -> list[tuple[object, object]]:
    return [(r["chosen_id"], r["rejected_id"]) for r in rows]


def test_the_latest_review_wins_and_the_history_stays(logged: tuple[CandidateStore, dict[str, str]]) -> None:
    store, ids = logged
    store.record_review(ids["fast"], "exclude", reviewer="alice", note="relies on row-major layout")
    store.record_review(ids["fast"], "approve", reviewer="bob", note="layout is guaranteed here")
    history = store.reviews_of(ids["fast"])
    assert [(r.decision, r.reviewer) for r in history] == [("exclude", "alice"), ("approve", "bob")]
    index = ReviewIndex.load(store)
    latest = index.of_candidate(ids["fast"], "sft")
    assert latest is not None and latest.reviewer == "bob"
    sft = [r for r in iter_sft(store) if r["candidate_id"] == ids["fast"]]
    assert sft[0]["review"] == "approved" and sft[0]["reviewer"] == "bob"
    assert sft[0]["review_note"] == "layout is guaranteed here"


def test_exports_drop_excluded_items_and_flip_prefer_other(logged: tuple[CandidateStore, dict[str, str]]) -> None:
    store, ids = logged
    before = pairs_of(list(iter_dpo(store)))
    assert (ids["fast"], ids["wrong"]) in before and (ids["fast2"], ids["broken"]) in before
    store.record_review(ids["fast"], "exclude", reviewer="alice")  # a candidate: every pair with it goes
    store.record_review(ids["fast2"], "prefer_other", other_id=ids["broken"], reviewer="alice")
    rows = list(iter_dpo(store))
    assert not [p for p in pairs_of(rows) if ids["fast"] in p]
    flipped = [r for r in rows if r["chosen_id"] == ids["broken"]]
    assert len(flipped) == 1 and flipped[0]["rejected_id"] == ids["fast2"] and flipped[0]["review"] == "flipped"
    assert flipped[0]["chosen_status"] == "compile_error" and flipped[0]["rejected_speedup"] == 1.75
    assert {r["review"] for r in rows if r is not flipped[0]} == {"unreviewed"}
    # The SFT example falls back to the best candidate that is not excluded.
    sft = [r["candidate_id"] for r in iter_sft(store) if r["function_key"] == rows[0]["function_key"]]
    assert sft == [ids["fast2"]]
    # The same pair in the reward export is flipped too; approved_only keeps just the reviewed rows.
    reward = list(iter_reward(store, approved_only=True))
    assert pairs_of(reward) == [(ids["broken"], ids["fast2"])]


def test_a_pair_review_is_found_in_either_order_and_can_apply_to_one_rule(
    logged: tuple[CandidateStore, dict[str, str]],
) -> None:
    store, ids = logged
    store.record_review(ids["broken"], "exclude", other_id=ids["fast2"], reviewer="carol", applies_to="reward")
    assert (ids["fast2"], ids["broken"]) in pairs_of(list(iter_dpo(store)))
    assert (ids["fast2"], ids["broken"]) not in pairs_of(list(iter_reward(store)))
    store.record_review(ids["fast"], "approve", reviewer="carol")
    store.record_review(ids["wrong"], "approve", reviewer="dave")
    approved = list(iter_dpo(store, approved_only=True))
    # Both candidates approved on their own approve their pair; the later review names the reviewer.
    assert pairs_of(approved) == [(ids["fast"], ids["wrong"])] and approved[0]["reviewer"] == "dave"


def test_bad_reviews_are_refused_with_a_reason(logged: tuple[CandidateStore, dict[str, str]]) -> None:
    store, ids = logged
    with pytest.raises(errors.InvalidReviewError, match="unknown review decision 'maybe'"):
        store.record_review(ids["fast"], "maybe", reviewer="alice")
    with pytest.raises(errors.InvalidReviewError, match="prefer_other is for a pair"):
        store.record_review(ids["fast"], "prefer_other", reviewer="alice")
    with pytest.raises(errors.InvalidReviewError, match="different requests"):
        store.record_review(ids["fast"], "approve", other_id=ids["omp"], reviewer="alice")
    with pytest.raises(errors.InvalidReviewError, match="two different candidates"):
        store.record_review(ids["fast"], "approve", other_id=ids["fast"], reviewer="alice")
    with pytest.raises(errors.NotFoundError, match="never logged"):
        store.record_review("01NOPE", "approve", reviewer="alice")
    assert store.reviews() == []


def test_forget_removes_reviews_and_a_late_review_of_a_forgotten_item_is_refused(
    logged: tuple[CandidateStore, dict[str, str]],
) -> None:
    store, ids = logged
    store.record_review(ids["omp"], "exclude", reviewer="alice", note="uses a private pragma")
    store.record_review(ids["fast"], "approve", other_id=ids["wrong"], reviewer="alice")
    result = store.forget("/home/user/proj/src/blas")
    assert result.candidates == 2
    assert [r.candidate_id for r in store.reviews()] == [ids["fast"]]
    with pytest.raises(errors.NotFoundError, match="forget"):
        store.record_review(ids["omp"], "approve", reviewer="bob")
    assert store.check() == []


def test_review_items_put_unreviewed_pairs_first(logged: tuple[CandidateStore, dict[str, str]]) -> None:
    store, ids = logged
    items = review_items(store)
    first = items[0]
    store.record_review(first.candidates[0].id, "approve", other_id=first.candidates[1].id, reviewer="alice")
    again = review_items(store)
    assert [i.ident for i in again[:-1]] == [i.ident for i in items[1:]]
    assert again[-1].ident == first.ident and again[-1].review is not None
    kinds = [i.is_pair for i in again[:-1]]
    assert kinds == sorted(kinds, reverse=True)  # pairs, then the examples
    # Pairs that lose a candidate to an exclusion are left out of the exports: they move behind the open items.
    store.record_review(ids["wrong"], "exclude", reviewer="alice")
    now = review_items(store)
    moved = [i for i in now if i.left_out]
    assert len(moved) >= 2 and all(ids["wrong"] in {c.id for c in i.candidates} for i in moved)
    still_open = [i.ident for i in now if i.review is None and not i.left_out]
    assert [i.ident for i in now[: len(still_open)]] == still_open
    only_dot = review_items(store, function="dot")
    assert {i.request.function for i in only_dot} == {"dot"} and only_dot
    assert {c.id for i in review_items(store, status="slower") for c in i.candidates} >= {ids["omp_slow"]}


WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from perfalign.server.store import CandidateStore
    path, reviewer, chosen, rejected, start = sys.argv[1:]
    while not Path(start).exists():
        time.sleep(0.01)
    with CandidateStore(path, prune=False) as store:
        for i in range(25):
            decision = "approve" if reviewer == "alice" else "prefer_other"
            store.record_review(chosen, decision, other_id=rejected, reviewer=reviewer, note=str(i))
    print("done")
    """
)


def test_two_reviewers_at_once_both_saved_latest_wins(tmp_path: Path) -> None:
    path = tmp_path / "perfalign.db"
    with CandidateStore(path) as store:
        ids = populate(store)
    start = tmp_path / "go"
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), who, ids["fast"], ids["wrong"], str(start)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
        for who in ("alice", "bob")
    ]
    start.touch()
    outputs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    with CandidateStore(path) as store:
        reviews = store.reviews()
        assert sorted(r.reviewer for r in reviews) == ["alice"] * 25 + ["bob"] * 25
        latest = reviews[-1]
        row = [r for r in iter_dpo(store) if {r["chosen_id"], r["rejected_id"]} == {ids["fast"], ids["wrong"]}][0]
        assert row["reviewer"] == latest.reviewer and row["review_note"] == latest.note
        assert row["review"] == ("approved" if latest.reviewer == "alice" else "flipped")
