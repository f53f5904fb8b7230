"""Summary numbers over the preference store, for ``perfalign prefs stats`` and the report.

* **candidates**: every logged candidate; **verified**: those with status ``faster``.
* **shown**: candidates with any user feedback; **accepted**: with ``accepted`` or
  ``edited_after_accept``. Acceptance rate = accepted / shown.
* **geomean speedup**: geometric mean of the speedups of verified candidates.

Review coverage, per function and per model, counts candidates by the latest
review that names them (alone or in a pair): **reviewed** (any review),
**excluded** (the latest one excludes it) and **overruled** (the latest one
goes against the log: a pair flipped, a candidate the user accepted excluded,
or one the user rejected approved).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from ._db import CandidateStore
from ._reviews import ReviewIndex

_FLAGS_SQL = """
SELECT c.id, c.created_at, c.model, c.adapter, r.mode, c.status, c.speedup,
  EXISTS (SELECT 1 FROM feedback f WHERE f.candidate_id = c.id) AS shown,
  EXISTS (SELECT 1 FROM feedback f WHERE f.candidate_id = c.id
          AND f.action IN ('accepted', 'edited_after_accept')) AS accepted
FROM candidates c JOIN requests r ON r.id = c.request_id
"""


@dataclass
class GroupStats:
    name: str
    candidates: int = 0
    verified: int = 0
    shown: int = 0
    accepted: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    log_speedup_sum: float = 0.0

    @property
    def share_verified(self) -> float | None:
        return self.verified / self.candidates if self.candidates else None

    @property
    def acceptance_rate(self) -> float | None:
        return self.accepted / self.shown if self.shown else None

    @property
    def geomean_speedup(self) -> float | None:
        return math.exp(self.log_speedup_sum / self.verified) if self.verified else None

    def add(self, row: dict[str, Any]) -> None:
        self.candidates += 1
        self.statuses[row["status"]] = self.statuses.get(row["status"], 0) + 1
        if row["status"] == "faster" and row["speedup"]:
            self.verified += 1
            self.log_speedup_sum += math.log(row["speedup"])
        self.shown += int(bool(row["shown"]))
        self.accepted += int(bool(row["accepted"]))

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        del data["log_speedup_sum"]
        data.update(
            share_verified=self.share_verified,
            acceptance_rate=self.acceptance_rate,
            geomean_speedup=self.geomean_speedup,
        )
        return data


@dataclass
class ReviewGroup:
    """Review coverage of a group of candidates (a function, a model, or all)."""

    name: str
    candidates: int = 0
    reviewed: int = 0
    excluded: int = 0
    overruled: int = 0

    def _share(self, n: int) -> float | None:
        return n / self.candidates if self.candidates else None

    def add(self, decision: str | None, overruled: bool) -> None:
        self.candidates += 1
        self.reviewed += int(decision is not None)
        self.excluded += int(decision == "exclude")
        self.overruled += int(overruled)

    def to_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "share_reviewed": self._share(self.reviewed),
            "share_excluded": self._share(self.excluded),
            "share_overruled": self._share(self.overruled),
        }


@dataclass
class ReviewCoverage:
    overall: ReviewGroup
    by_function: list[ReviewGroup]
    by_model: list[ReviewGroup]
    reviews: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "reviews": self.reviews,
            "overall": self.overall.to_dict(),
            "by_function": [g.to_dict() for g in self.by_function],
            "by_model": [g.to_dict() for g in self.by_model],
        }


@dataclass
class Stats:
    overall: GroupStats
    by_model: list[GroupStats]
    by_mode: list[GroupStats]
    requests: int
    feedback: int
    review: ReviewCoverage = field(default_factory=lambda: ReviewCoverage(ReviewGroup("all"), [], [], 0))

    def to_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "feedback": self.feedback,
            "overall": self.overall.to_dict(),
            "by_model": [g.to_dict() for g in self.by_model],
            "by_mode": [g.to_dict() for g in self.by_mode],
            "review": self.review.to_dict(),
        }


def model_label(model: str, adapter: str | None) -> str:
    return f"{model}+{adapter}" if adapter else model


def candidate_rows(store: CandidateStore, since: str | None = None) -> list[dict[str, Any]]:
    """One row per candidate: when, model, mode, status, speedup, shown, accepted."""
    sql = _FLAGS_SQL + (" WHERE c.created_at >= ?" if since else "") + " ORDER BY c.id"
    return store.query(sql, [since] if since else [])


_REVIEW_SQL = """
SELECT c.id, c.model, c.adapter, r.function, r.file_path, r.function_key,
  EXISTS (SELECT 1 FROM feedback f WHERE f.candidate_id = c.id
          AND f.action IN ('accepted', 'edited_after_accept')) AS accepted,
  EXISTS (SELECT 1 FROM feedback f WHERE f.candidate_id = c.id AND f.action = 'rejected') AS rejected
FROM candidates c JOIN requests r ON r.id = c.request_id
"""


def review_coverage(store: CandidateStore, since: str | None = None) -> ReviewCoverage:
    """Share of candidates reviewed, excluded and overruled, overall, per function and per model."""
    index = ReviewIndex.load(store)
    overall = ReviewGroup("all")
    functions: dict[str, ReviewGroup] = {}
    models: dict[str, ReviewGroup] = {}
    sql = _REVIEW_SQL + (" WHERE c.created_at >= ?" if since else "") + " ORDER BY c.id"
    for row in store.query(sql, [since] if since else []):
        review = index.latest_naming(row["id"])
        decision = review.decision if review else None
        overruled = review is not None and (
            decision == "prefer_other"
            or (not review.is_pair and decision == "exclude" and bool(row["accepted"]))
            or (not review.is_pair and decision == "approve" and bool(row["rejected"]))
        )
        overall.add(decision, overruled)
        name = f"{row['function']} ({row['file_path']})"
        functions.setdefault(row["function_key"], ReviewGroup(name)).add(decision, overruled)
        label = model_label(row["model"], row["adapter"])
        models.setdefault(label, ReviewGroup(label)).add(decision, overruled)
    return ReviewCoverage(
        overall=overall,
        by_function=sorted(functions.values(), key=lambda g: g.name),
        by_model=sorted(models.values(), key=lambda g: g.name),
        reviews=store.query("SELECT count(*) AS n FROM reviews")[0]["n"],
    )


def compute(store: CandidateStore, since: str | None = None) -> Stats:
    overall = GroupStats("all")
    models: dict[str, GroupStats] = {}
    modes: dict[str, GroupStats] = {}
    for row in candidate_rows(store, since):
        overall.add(row)
        label = model_label(row["model"], row["adapter"])
        models.setdefault(label, GroupStats(label)).add(row)
        modes.setdefault(row["mode"], GroupStats(row["mode"])).add(row)
    counts = store.counts()
    return Stats(
        overall=overall,
        by_model=sorted(models.values(), key=lambda g: g.name),
        by_mode=sorted(modes.values(), key=lambda g: g.name),
        requests=counts["requests"],
        feedback=counts["feedback"],
        review=review_coverage(store, since),
    )
