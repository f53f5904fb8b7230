"""Statistics for timing comparisons: medians, a bootstrap interval and a rank test.

Timings of the original and the candidate are taken interleaved, in one run;
the verdict rests on the whole distributions, never on one measurement.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import mannwhitneyu

from ..verdict import Status

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


def bootstrap_speedup_ci(
    baseline: np.ndarray, candidate: np.ndarray, *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0
) -> tuple[float, float]:
    """95% percentile interval of median(baseline) / median(candidate)."""
    rng = np.random.default_rng(seed)
    b = rng.choice(baseline, size=(resamples, baseline.size), replace=True)
    c = rng.choice(candidate, size=(resamples, candidate.size), replace=True)
    ratios = np.median(b, axis=1) / np.median(c, axis=1)
    low, high = np.percentile(ratios, [2.5, 97.5])
    return float(low), float(high)


def compare(
    baseline_ms: list[float], candidate_ms: list[float], *, threshold: float = 1.05, alpha: float = ALPHA
) -> Comparison:
    """Decide faster / slower / not significant from per-run times (milliseconds).

    ``faster``: the interval's low end is above ``threshold`` and a one-sided
    Mann-Whitney test (candidate times smaller) gives p < ``alpha``.
    ``slower``: the interval's high end is below 1. Otherwise ``not_significant``.
    """
    if len(baseline_ms) < 3 or len(candidate_ms) < 3:
        raise ValueError("need at least 3 timings of each side")
    b = np.asarray(baseline_ms, dtype=float)
    c = np.asarray(candidate_ms, dtype=float)
    b_med = float(np.median(b))
    c_med = float(np.median(c))
    speedup = b_med / c_med if c_med > 0 else float("inf")
    low, high = bootstrap_speedup_ci(b, c)
    p_value = float(mannwhitneyu(c, b, alternative="less").pvalue)
    if low > threshold and p_value < alpha:
        status = Status.FASTER
    elif high < 1.0:
        status = Status.SLOWER
    else:
        status = Status.NOT_SIGNIFICANT
    return Comparison(status, speedup, (low, high), p_value, b_med, c_med)
