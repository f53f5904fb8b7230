"""Statistics for timing comparisons: paired ratios, a bootstrap interval and a rank test.

Timings of the original and the candidate are taken interleaved, one call of
each per pair on the same inputs, so each pair's ratio (original time /
candidate time) cancels what the machine did to both calls at once. One
timing session gives a :class:`Comparison`; a verdict that says ``faster``
rests on two sessions in fresh processes (:func:`combine`), never on one
measurement.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import mannwhitneyu

from ...verdict import Status

BOOTSTRAP_RESAMPLES = 4000
ALPHA = 0.01


@dataclass(frozen=True)
class Comparison:
    status: Status
    speedup: float
    ci95: tuple[float, float]
    p_value: float
    baseline_ms: float
    candidate_ms: float
    ratios: tuple[float, ...] = ()


def bootstrap_ratio_ci(
    ratios: np.ndarray, *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0
) -> tuple[float, float]:
    """95% percentile interval of the median of the per-pair ratios (pairs resampled whole)."""
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, ratios.size, size=(resamples, ratios.size))
    medians = np.median(ratios[picks], axis=1)
    low, high = np.percentile(medians, [2.5, 97.5])
    return float(low), float(high)


def compare(
    baseline_ms: list[float], candidate_ms: list[float], *, threshold: float = 1.05, alpha: float = ALPHA
) -> Comparison:
    """Decide faster / slower / not significant from one session's interleaved pairs (milliseconds).

    ``baseline_ms[i]`` and ``candidate_ms[i]`` are the two calls of pair ``i``.
    The speedup is the median of the pairs' ratios (original / candidate).
    ``faster``: the interval's low end is above ``threshold`` and a one-sided
    Mann-Whitney test (the candidate's calls are shorter) gives p <
    ``alpha``; a rank test, so one call hit by a burst of load does not
    decide it, and five pairs can be enough. ``slower`` needs the same
    evidence the other way: the interval's high end below ``1 / threshold``
    and the opposite one-sided test below ``alpha``. Otherwise
    ``not_significant``: identical code lands there, and neither verdict is
    easier to reach than the other. ``p_value`` is the test for ``faster``.
    """
    if len(baseline_ms) < 3 or len(candidate_ms) != len(baseline_ms):
        raise ValueError("need at least 3 interleaved pairs of timings")
    b = np.asarray(baseline_ms, dtype=float)
    c = np.maximum(np.asarray(candidate_ms, dtype=float), 1e-9)
    ratios = b / c
    speedup = float(np.median(ratios))
    low, high = bootstrap_ratio_ci(ratios)
    p_value = float(mannwhitneyu(c, b, alternative="less").pvalue)
    if low > threshold and p_value < alpha:
        status = Status.FASTER
    elif high < 1.0 / threshold and float(mannwhitneyu(c, b, alternative="greater").pvalue) < alpha:
        status = Status.SLOWER
    else:
        status = Status.NOT_SIGNIFICANT
    return Comparison(status, speedup, (low, high), p_value, float(np.median(b)), float(np.median(c)),
                      tuple(float(r) for r in ratios))


def combine(first: Comparison, second: Comparison) -> Comparison:
    """Two sessions at the same size as one: ``faster`` only when both are, an interval that spans both.

    The speedup is the median of both sessions' ratios; the interval runs from
    the lower of the two low ends to the higher of the two high ends, so it
    covers the variation between the sessions as well as within each; the p
    value is the larger one (both tests must pass).
    """
    ratios = np.asarray(first.ratios + second.ratios, dtype=float)
    if first.status is Status.FASTER and second.status is Status.FASTER:
        status = Status.FASTER
    elif first.status is Status.SLOWER and second.status is Status.SLOWER:
        status = Status.SLOWER
    else:
        status = Status.NOT_SIGNIFICANT
    ci = (min(first.ci95[0], second.ci95[0]), max(first.ci95[1], second.ci95[1]))
    return Comparison(status, float(np.median(ratios)), ci, max(first.p_value, second.p_value),
                      float(np.median([first.baseline_ms, second.baseline_ms])),
                      float(np.median([first.candidate_ms, second.candidate_ms])), tuple(float(r) for r in ratios))
