"""Paired statistics of an evaluation: per-function metrics of two models and bootstrap intervals over functions.

The metrics are fixed before a run (docs/training.md, "Evaluate"):

* ``fast@1`` (primary): the chance that one sample is verified ``faster``;
* ``pass@1``: the chance that one sample is correct;
* ``gain``: what a user gets with the product's settings: the expected best
  verified speedup among ``gain_samples`` samples, 1.0 when none of them is
  verified faster, each function capped at ``gain_cap``; aggregated as a
  geometric mean over functions, so the paired difference is taken on its log
  and reported as a ratio;
* ``speedup_n@k``: the paper's expected best speedup among k samples, incorrect
  ones counting 0 (arithmetic mean over functions; outlier-driven, for comparison).

For each metric the per-function difference (trained − base) is averaged over
functions, with a percentile bootstrap interval that resamples functions.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from ._metrics import expected_max

CORRECT_STATUSES = frozenset({"faster", "not_significant", "slower"})
METRICS = ("fast@1", "pass@1", "gain", "speedup_n@k")
PRIMARY = "fast@1"


@dataclass(frozen=True)
class Draw:
    """One verified sample: its status and speedup, as ``verdicts.jsonl`` holds them."""

    status: str
    speedup: float | None = None


def fast_at_1(draws: Sequence[Draw]) -> float:
    return sum(d.status == "faster" for d in draws) / len(draws)


def pass_at_1(draws: Sequence[Draw]) -> float:
    return sum(d.status in CORRECT_STATUSES for d in draws) / len(draws)


def gain(draws: Sequence[Draw], samples: int = 4, cap: float = 10.0) -> float:
    """Expected best verified speedup among ``samples`` draws (1.0 for a draw not verified faster), capped."""
    values = [min(float(d.speedup), cap) if d.status == "faster" and d.speedup else 1.0 for d in draws]
    return expected_max([max(v, 1.0) for v in values], min(samples, len(values)))


def speedup_n_at_k(draws: Sequence[Draw], k: int) -> float:
    values = [float(d.speedup) if d.status in CORRECT_STATUSES and d.speedup else 0.0 for d in draws]
    return expected_max(values, min(k, len(values)))


def function_metrics(draws: Sequence[Draw], *, gain_samples: int = 4, gain_cap: float = 10.0) -> dict[str, float]:
    """Every metric of one function for one model (``gain`` as its log, to be averaged)."""
    if not draws:
        raise ValueError("no samples for this function")
    return {
        "fast@1": fast_at_1(draws),
        "pass@1": pass_at_1(draws),
        "gain": math.log(gain(draws, gain_samples, gain_cap)),
        "speedup_n@k": speedup_n_at_k(draws, gain_samples),
    }


def bootstrap_interval(
    differences: Sequence[float], *, resamples: int = 10_000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``differences``, resampling them (functions) with replacement."""
    import numpy as np

    values = np.asarray(differences, dtype=np.float64)
    if values.size == 0:
        return (0.0, 0.0)
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, values.size, size=(resamples, values.size))].mean(axis=1)
    tail = (1.0 - level) / 2
    return float(np.quantile(means, tail)), float(np.quantile(means, 1.0 - tail))


@dataclass
class Comparison:
    """One metric over one group of functions: both models' means and the paired difference with its interval."""

    metric: str
    group: str
    functions: int
    base: float
    trained: float
    difference: float
    low: float
    high: float

    @property
    def excludes_zero(self) -> bool:
        return self.low > 0.0 or self.high < 0.0

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {**asdict(self), "excludes_zero": self.excludes_zero}
        if self.metric == "gain":  # averaged as logs: report geometric means and the ratio
            out.update(
                base_geomean=math.exp(self.base),
                trained_geomean=math.exp(self.trained),
                ratio=math.exp(self.difference),
                ratio_low=math.exp(self.low),
                ratio_high=math.exp(self.high),
            )
        return out


def compare(
    base: Sequence[dict[str, float]],
    trained: Sequence[dict[str, float]],
    group: str,
    *,
    resamples: int = 10_000,
    seed: int = 0,
) -> list[Comparison]:
    """Paired comparisons of every metric; ``base[i]`` and ``trained[i]`` are the same function's metrics."""
    if len(base) != len(trained):
        raise ValueError("the two models must be scored on the same functions")
    out = []
    for metric in METRICS:
        b = [m[metric] for m in base]
        t = [m[metric] for m in trained]
        diffs = [y - x for x, y in zip(b, t, strict=True)]
        n = len(diffs)
        low, high = bootstrap_interval(diffs, resamples=resamples, seed=seed) if n else (0.0, 0.0)
        out.append(
            Comparison(
                metric=metric,
                group=group,
                functions=n,
                base=sum(b) / n if n else 0.0,
                trained=sum(t) / n if n else 0.0,
                difference=sum(diffs) / n if n else 0.0,
                low=low,
                high=high,
            )
        )
    return out


def verdict_rule(comparisons: Sequence[Comparison], max_pass_drop: float = 0.05) -> dict[str, object]:
    """The pre-registered decision on the ``all`` group: fast@1's interval above 0, pass@1 down by at most 0.05."""
    by_metric = {c.metric: c for c in comparisons if c.group == "all"}
    fast, passed = by_metric.get(PRIMARY), by_metric.get("pass@1")
    wins = bool(fast and fast.low > 0.0 and passed and passed.difference >= -max_pass_drop)
    return {
        "rule": f"{PRIMARY}'s paired 95% interval above 0 and pass@1 down by at most {max_pass_drop}",
        "trained_wins": wins,
    }
