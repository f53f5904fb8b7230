"""The timing statistics: paired ratios within a session, and two sessions combined into one verdict."""
from __future__ import annotations

import numpy as np

from perfalign.server.verdict import Status
from perfalign.server.verify.judging._stats import combine, compare


def session(speedup: float, noise: float, n: int = 21, seed: int = 0,
            load: float = 0.0) -> tuple[list[float], list[float]]:
    """Interleaved pairs: each pair shares a burst of load (``load``) that a paired statistic cancels."""
    rng = np.random.default_rng(seed)
    bursts = 1.0 + load * rng.random(n)
    baseline = 20.0 * bursts * (1 + noise * rng.standard_normal(n))
    candidate = 20.0 / speedup * bursts * (1 + noise * rng.standard_normal(n))
    return list(baseline), list(candidate)


def test_a_clear_speedup_is_faster_with_an_interval_around_it() -> None:
    result = compare(*session(1.5, 0.02))
    assert result.status is Status.FASTER
    assert 1.05 < result.ci95[0] <= result.speedup <= result.ci95[1]
    assert abs(result.speedup - 1.5) < 0.1 and result.p_value < 0.01


def test_pairs_cancel_load_that_hits_both_calls_of_a_pair() -> None:
    # Bursts of load up to 3x, the same within each pair: the pairs' ratios see through them.
    result = compare(*session(1.2, 0.01, load=2.0))
    assert 1.15 < result.ci95[0] <= result.speedup <= result.ci95[1] < 1.25


def test_one_call_hit_by_a_burst_does_not_decide() -> None:
    baseline, candidate = session(3.0, 0.02, n=11)
    candidate[2] *= 40  # descheduled for a time slice in the middle of one short call
    result = compare(baseline, candidate)
    assert result.status is Status.FASTER and result.speedup > 2.5


def test_the_same_code_is_not_significant_and_a_loser_is_slower() -> None:
    assert compare(*session(1.0, 0.05)).status is Status.NOT_SIGNIFICANT
    assert compare(*session(0.5, 0.05)).status is Status.SLOWER


def test_slower_needs_the_same_evidence_as_faster() -> None:
    # Identical code over many sessions: neither verdict, and as often near one end as the other.
    statuses = [compare(*session(1.0, 0.03, seed=seed)).status for seed in range(200)]
    assert statuses.count(Status.FASTER) == 0 and statuses.count(Status.SLOWER) == 0
    # 1.5% apart, measured tightly: the interval excludes 1 on either side, yet neither side clears the threshold.
    for speedup in (1.015, 1 / 1.015):
        result = compare(*session(speedup, 0.002, n=41))
        assert result.ci95[0] > 1.0 or result.ci95[1] < 1.0
        assert result.status is Status.NOT_SIGNIFICANT, (speedup, result)
    # Mirror images get mirror verdicts.
    assert compare(*session(1.25, 0.01)).status is Status.FASTER
    assert compare(*session(1 / 1.25, 0.01)).status is Status.SLOWER


def test_a_few_pairs_can_still_say_faster() -> None:
    # Training's rewards time 5 pairs: a consistent 2x must still be a speedup there.
    assert compare(*session(2.0, 0.01, n=5)).status is Status.FASTER


def test_two_sessions_that_agree_stay_faster_with_an_interval_over_both() -> None:
    first = compare(*session(1.5, 0.02, seed=1))
    second = compare(*session(1.4, 0.02, seed=2))
    both = combine(first, second)
    assert both.status is Status.FASTER
    assert both.ci95 == (min(first.ci95[0], second.ci95[0]), max(first.ci95[1], second.ci95[1]))
    assert both.ci95[0] <= both.speedup <= both.ci95[1]
    assert both.p_value == max(first.p_value, second.p_value)


def test_faster_in_one_session_and_not_the_other_is_not_significant() -> None:
    first = compare(*session(1.3, 0.02, seed=3))
    second = compare(*session(0.8, 0.02, seed=4))
    assert first.status is Status.FASTER and second.status is Status.SLOWER
    both = combine(first, second)
    assert both.status is Status.NOT_SIGNIFICANT
    assert both.ci95[0] < 0.85 and both.ci95[1] > 1.25  # the interval covers what both sessions saw


def test_a_session_ends_early_only_for_a_clear_winner_or_loser() -> None:
    from perfalign.server.verify.judging._pair import Timings, clear_loser, clear_winner

    # Eight pairs, each far above the threshold: no more are needed.
    assert clear_winner(Timings([10.0] * 8, [1.0] * 8), 1.05)
    # One pair in eight that the machine delayed does not keep it going.
    assert clear_winner(Timings([10.0] * 8, [1.0] * 7 + [9.0]), 1.05)
    # Too few pairs, two delayed pairs of eight, or a speedup below twice the threshold: every pair is taken.
    assert not clear_winner(Timings([10.0] * 7, [1.0] * 7), 1.05)
    assert not clear_winner(Timings([10.0] * 8, [1.0] * 6 + [9.0, 9.0]), 1.05)
    assert not clear_winner(Timings([2.0] * 21, [1.0] * 21), 1.05)
    # The same for a loser: eight pairs each far below 1 / threshold end the session as early.
    assert clear_loser(Timings([1.0] * 8, [10.0] * 8), 1.05)
    assert not clear_loser(Timings([1.0] * 8, [1.5] * 8), 1.05)
    assert not clear_loser(Timings([10.0] * 8, [1.0] * 8), 1.05)
