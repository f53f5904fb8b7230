"""How logged candidates become preference pairs. docs/preferences.md states the same rules.

Candidates are only compared with candidates of the same request (the same
prompt, function, machine and settings).

* A candidate is **good** when it was verified faster or accepted by the user
  (``accepted`` or ``edited_after_accept``), and the user did not reject it.
* A candidate is **bad** when the user rejected it or its status is ``slower``,
  ``incorrect``, ``compile_error``, ``timeout``, ``crash`` or ``rejected_unsafe``.
* A candidate is **correct but not faster** when it passed every check, was
  timed and was not verified faster (``not_significant``), and the user did
  not accept it.
* Everything else (``unsupported``, no code) is neither.

Two candidates differ **significantly** when

1. one of them failed (not built, checked and timed) and the other was timed, or
2. both were timed and their speedup intervals do not overlap, or
3. the user accepted one and rejected the other.

Otherwise the pair is dropped: two faster candidates with overlapping
intervals, or anything against ``not_significant`` on timing alone, tell
nothing.

**DPO pairs** are (good, bad) pairs and (good, correct but not faster) pairs
that differ significantly: the second kind teaches speed itself, since both
answers are correct and only the measured time tells them apart. **Reward pairs**
are every significantly different pair of scored candidates, the higher score
chosen: a correct candidate beats a failed one, a faster one beats a slower
one, the user's choice beats the one they turned down.

**Repair pairs** come from the feedback rounds: a candidate of a later round
(chosen) and the candidate whose feedback it answered (rejected), when it
fixed it: the earlier one failed and the answer passed every check (a
repair), or the earlier one was correct but not verified faster and the answer
was verified faster (an improvement). An answer the user rejected fixes
nothing.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..verdict import TIMED, Status
from ._rows import StoredCandidate

BAD_STATUSES = frozenset(
    {Status.SLOWER, Status.INCORRECT, Status.COMPILE_ERROR, Status.TIMEOUT, Status.CRASH, Status.REJECTED_UNSAFE}
)
# Statuses where the candidate is known to be wrong or unsafe: scored FAILED_SCORE.
FAILED_STATUSES = frozenset(
    {Status.INCORRECT, Status.COMPILE_ERROR, Status.TIMEOUT, Status.CRASH, Status.REJECTED_UNSAFE}
)
# The score of a failed candidate, below any timed one (log speedups are clipped to SCORE_RANGE).
FAILED_SCORE = -3.0
SCORE_RANGE = (-2.0, 5.0)
# How much the user's verdict moves a score: an accepted candidate outranks a rejected one.
USER_BONUS = 1.0


def is_good(c: StoredCandidate) -> bool:
    if not c.code or c.rejected_by_user:
        return False
    return c.verdict.status is Status.FASTER or c.accepted


def is_bad(c: StoredCandidate) -> bool:
    if not c.code:
        return False
    return c.rejected_by_user or c.verdict.status in BAD_STATUSES


def is_correct_not_faster(c: StoredCandidate) -> bool:
    if not c.code or c.accepted:
        return False
    return c.verdict.status is Status.NOT_SIGNIFICANT and c.verdict.speedup is not None


def is_timed(c: StoredCandidate) -> bool:
    return c.verdict.status in TIMED and c.verdict.speedup is not None


def is_failed(c: StoredCandidate) -> bool:
    return c.verdict.status in FAILED_STATUSES


def intervals_overlap(a: StoredCandidate, b: StoredCandidate) -> bool:
    """True when the speedup intervals overlap (a missing interval counts as the point speedup)."""
    lo_a, hi_a = a.verdict.ci95 or (a.verdict.speedup, a.verdict.speedup)
    lo_b, hi_b = b.verdict.ci95 or (b.verdict.speedup, b.verdict.speedup)
    assert lo_a is not None and hi_a is not None and lo_b is not None and hi_b is not None
    return lo_a <= hi_b and lo_b <= hi_a


def significantly_different(a: StoredCandidate, b: StoredCandidate) -> bool:
    """Rules 1–3 of the module docstring."""
    if (is_failed(a) and is_timed(b)) or (is_failed(b) and is_timed(a)):
        return True
    if is_timed(a) and is_timed(b) and not intervals_overlap(a, b):
        return True
    return (a.accepted and b.rejected_by_user) or (b.accepted and a.rejected_by_user)


def score(c: StoredCandidate) -> float | None:
    """Log speedup (clipped), FAILED_SCORE for a failure, moved by USER_BONUS for the user's verdict; None if unscored."""
    if is_failed(c):
        value = FAILED_SCORE
    elif is_timed(c):
        assert c.verdict.speedup is not None
        value = min(max(math.log(max(c.verdict.speedup, 1e-9)), SCORE_RANGE[0]), SCORE_RANGE[1])
    else:
        return None
    if c.accepted:
        value += USER_BONUS
    if c.rejected_by_user:
        value -= USER_BONUS
    return value


@dataclass
class Pair:
    chosen: StoredCandidate
    rejected: StoredCandidate
    margin: float  # score(chosen) - score(rejected), never negative


def _margin(chosen: StoredCandidate, rejected: StoredCandidate) -> float:
    a, b = score(chosen), score(rejected)
    if a is None or b is None:
        return 0.0
    return round(max(a - b, 0.0), 6)


def _distinct(candidates: list[StoredCandidate]) -> list[StoredCandidate]:
    """One candidate per distinct code (the first logged), so identical code is never paired with itself."""
    seen: set[str] = set()
    out = []
    for c in candidates:
        if c.code and c.code_hash not in seen:
            seen.add(c.code_hash)
            out.append(c)
    return out


def dpo_pairs(candidates: list[StoredCandidate]) -> list[Pair]:
    """(good, bad) and (good, correct but not faster) pairs of one request that differ significantly."""
    distinct = _distinct(candidates)
    good = [c for c in distinct if is_good(c)]
    bad = [c for c in distinct if is_bad(c) or is_correct_not_faster(c)]
    return [Pair(g, b, _margin(g, b)) for g in good for b in bad if significantly_different(g, b)]


def reward_pairs(candidates: list[StoredCandidate]) -> list[Pair]:
    """Every significantly different pair of scored candidates of one request, higher score chosen."""
    scored = [(c, s) for c in _distinct(candidates) if (s := score(c)) is not None]
    pairs = []
    for i, (a, sa) in enumerate(scored):
        for b, sb in scored[i + 1 :]:
            if sa == sb or not significantly_different(a, b):
                continue
            chosen, rejected = (a, b) if sa > sb else (b, a)
            pairs.append(Pair(chosen, rejected, _margin(chosen, rejected)))
    return pairs


def repair_pairs(candidates: list[StoredCandidate]) -> list[Pair]:
    """(fixed answer, the candidate it answered) pairs of one request's feedback rounds."""
    by_id = {c.id: c for c in candidates}
    pairs = []
    for answer in candidates:
        parent = by_id.get(answer.parent_id) if answer.parent_id else None
        if parent is None or not answer.code or not parent.code or answer.rejected_by_user:
            continue
        if answer.code_hash == parent.code_hash:
            continue
        repaired = is_failed(parent) and is_timed(answer)
        improved = (is_timed(parent) and parent.verdict.status is not Status.FASTER
                    and answer.verdict.status is Status.FASTER)
        if repaired or improved:
            pairs.append(Pair(answer, parent, _margin(answer, parent)))
    return pairs


def good_rewrites(candidates: list[StoredCandidate]) -> list[StoredCandidate]:
    """Every distinct good candidate (what SFT imitates): accepted first, then by speedup, highest first."""
    good = [c for c in _distinct(candidates) if is_good(c)]
    return sorted(good, key=lambda c: (c.accepted, c.verdict.speedup or 0.0), reverse=True)


def best_good(candidates: list[StoredCandidate]) -> StoredCandidate | None:
    """The first of :func:`good_rewrites`: accepted first, then the highest speedup."""
    good = good_rewrites(candidates)
    return good[0] if good else None
