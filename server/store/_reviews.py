"""What reviewers decided, and how it changes the training data. docs/preferences.md states the same rules.

A review names a candidate, or a pair as it was shown (chosen, rejected). The
latest review of an item wins; earlier ones stay in the store as its history.

* A candidate whose latest review says ``exclude`` is in no export: no pair
  and no SFT example holds it, whatever a pair's own review says.
* A pair's latest review decides the pair: ``exclude`` drops it, ``approve``
  keeps it as it was shown, ``prefer_other`` makes the second candidate shown
  the chosen one. A pair without a review of its own is approved when both
  its candidates are.
* An SFT example is approved when its candidate's latest review approves it.

``review_items`` lists what ``perfalign prefs review`` walks: the DPO and
reward pairs of each request, then each request's SFT example; unreviewed
items first.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from ._db import CandidateStore
from ._pairs import Pair, dpo_pairs, good_rewrites, reward_pairs
from ._rows import REVIEW_SCOPES, StoredCandidate, StoredRequest, StoredReview

# The review state an exported row carries in its ``review`` field.
UNREVIEWED, APPROVED, FLIPPED = "unreviewed", "approved", "flipped"


@dataclass
class Decided:
    """What the reviews make of one exported item: its state, who decided, the note (None when unreviewed)."""

    state: str
    review: StoredReview | None

    def fields(self) -> dict[str, Any]:
        return {
            "review": self.state,
            "reviewer": self.review.reviewer if self.review else None,
            "review_note": (self.review.note or None) if self.review else None,
        }


class ReviewIndex:
    """Every review of a store, looked up by candidate and by pair; the latest one of an item wins."""

    def __init__(self, reviews: Iterable[StoredReview]) -> None:
        self._candidate: dict[tuple[str, str], StoredReview] = {}
        self._pair: dict[tuple[frozenset[str], str], StoredReview] = {}
        self._naming: dict[str, StoredReview] = {}
        for review in reviews:  # oldest first, so a later review replaces an earlier one
            for kind in REVIEW_SCOPES[1:]:
                if not review.applies(kind):
                    continue
                if review.other_id is None:
                    self._candidate[(review.candidate_id, kind)] = review
                else:
                    self._pair[(frozenset((review.candidate_id, review.other_id)), kind)] = review
            self._naming[review.candidate_id] = review
            if review.other_id is not None:
                self._naming[review.other_id] = review

    @classmethod
    def load(cls, store: CandidateStore) -> "ReviewIndex":
        return cls(store.reviews())

    def of_candidate(self, candidate_id: str, kind: str) -> StoredReview | None:
        """The latest review of the candidate alone that applies to ``kind`` (dpo, reward, sft or repair)."""
        return self._candidate.get((candidate_id, kind))

    def of_pair(self, a: str, b: str, kind: str = "dpo") -> StoredReview | None:
        """The latest review of the pair {a, b} (in either order) that applies to ``kind``."""
        return self._pair.get((frozenset((a, b)), kind))

    def latest_naming(self, candidate_id: str) -> StoredReview | None:
        """The latest review that names the candidate, alone or in a pair."""
        return self._naming.get(candidate_id)

    def excluded(self, candidate_id: str, kind: str) -> bool:
        review = self.of_candidate(candidate_id, kind)
        return review is not None and review.decision == "exclude"

    def decide_pair(self, pair: Pair, kind: str) -> tuple[Pair, Decided] | None:
        """The pair as the reviews leave it, with its state; None when a review drops it."""
        if self.excluded(pair.chosen.id, kind) or self.excluded(pair.rejected.id, kind):
            return None
        review = self.of_pair(pair.chosen.id, pair.rejected.id, kind)
        if review is not None:
            if review.decision == "exclude":
                return None
            # The pair as the reviewer saw it, then their decision on it.
            first, second = (
                (pair.chosen, pair.rejected) if review.candidate_id == pair.chosen.id else (pair.rejected, pair.chosen)
            )
            if review.decision == "prefer_other":
                first, second = second, first
            flipped = first.id != pair.chosen.id
            return replace(pair, chosen=first, rejected=second), Decided(FLIPPED if flipped else APPROVED, review)
        both = [self.of_candidate(c.id, kind) for c in (pair.chosen, pair.rejected)]
        if all(r is not None and r.decision == "approve" for r in both):
            latest = max((r for r in both if r is not None), key=lambda r: (r.created_at, r.id))
            return pair, Decided(APPROVED, latest)
        return pair, Decided(UNREVIEWED, None)

    def decide_candidate(self, candidate: StoredCandidate, kind: str = "sft") -> Decided | None:
        """An SFT example's state; None when its candidate is excluded."""
        review = self.of_candidate(candidate.id, kind)
        if review is None:
            return Decided(UNREVIEWED, None)
        if review.decision == "exclude":
            return None
        return Decided(APPROVED, review)


@dataclass
class ReviewItem:
    """One thing a reviewer decides on: a pair of one request (with the rule that made it) or an SFT example."""

    request: StoredRequest
    candidates: tuple[StoredCandidate, ...]  # (chosen, rejected) for a pair, (candidate,) for an example
    rule: str  # "dpo", "reward" (pairs) or "sft" (an example)
    review: StoredReview | None  # the latest review of exactly this item
    left_out: bool = False  # a pair no export writes because one of its candidates is excluded

    @property
    def is_pair(self) -> bool:
        return len(self.candidates) == 2

    @property
    def ident(self) -> str:
        """The id ``perfalign prefs label`` takes for this item."""
        return ":".join(c.id for c in self.candidates)


def _matches(candidate: StoredCandidate, status: str | None, model: str | None) -> bool:
    return (status is None or candidate.status == status) and (model is None or candidate.model == model)


def review_items(
    store: CandidateStore,
    *,
    since: str | None = None,
    function: str | None = None,
    status: str | None = None,
    model: str | None = None,
) -> list[ReviewItem]:
    """The pairs and SFT examples the filters select, unreviewed first, each group oldest request first.

    A pair with an excluded candidate counts as reviewed: no export writes it, whatever is decided on it.

    ``status`` and ``model`` select items with at least one candidate of that verdict status or model.
    """
    index = ReviewIndex.load(store)
    by_request = store.candidates_by_request(since)
    fresh: list[ReviewItem] = []
    reviewed: list[ReviewItem] = []
    for req in store.requests(since):
        if not req.code_stored or (function is not None and req.function != function):
            continue
        candidates = by_request.get(req.id, [])
        items: list[ReviewItem] = []
        seen: set[frozenset[str]] = set()
        for rule, pairs in (("dpo", dpo_pairs(candidates)), ("reward", reward_pairs(candidates))):
            for pair in pairs:
                key = frozenset((pair.chosen.id, pair.rejected.id))
                if key in seen:
                    continue
                seen.add(key)
                items.append(ReviewItem(req, (pair.chosen, pair.rejected), rule, index.of_pair(*key, kind=rule)))
        for good in good_rewrites(candidates):
            items.append(ReviewItem(req, (good,), "sft", index.of_candidate(good.id, "sft")))
        for item in items:
            item.left_out = item.is_pair and any(index.excluded(c.id, item.rule) for c in item.candidates)
            if any(_matches(c, status, model) for c in item.candidates):
                (fresh if item.review is None and not item.left_out else reviewed).append(item)
    pairs_first = sorted(range(len(fresh)), key=lambda i: (not fresh[i].is_pair, i))
    return [fresh[i] for i in pairs_first] + reviewed
