"""The paper's metrics with unbiased estimators over n samples per problem.

* ``build@k``: chance that at least one of k samples compiles;
* ``pass@k``: chance that at least one of k samples is correct;
* ``speedup_n@k``: expected best speedup among k samples, where an incorrect
  (or unbuilt) sample counts as speedup 0 — so a model that rarely writes
  correct code scores below 1 even if its rare successes are fast.

Each is estimated per problem from n >= k samples drawn without replacement,
then averaged over problems.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


def at_least_one(n: int, c: int, k: int) -> float:
    """1 - C(n-c, k) / C(n, k): chance that k of n samples include one of the c good ones."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n (n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def expected_max(values: Sequence[float], k: int) -> float:
    """Expected maximum of k values drawn without replacement from ``values``.

    With the values sorted ascending, the i-th (1-based) is the maximum of a
    k-subset in C(i-1, k-1) of the C(n, k) subsets.
    """
    n = len(values)
    if not 1 <= k <= n:
        raise ValueError(f"need 1 <= k <= n (n={n}, k={k})")
    ordered = sorted(values)
    total = math.comb(n, k)
    return sum(math.comb(i - 1, k - 1) * v for i, v in enumerate(ordered, 1) if i >= k) / total


@dataclass(frozen=True)
class Sample:
    """One verified sample: did it build, was it correct, its speedup (None if not timed)."""

    built: bool
    correct: bool
    speedup: float | None = None
    suggested: bool = False  # the verifier's "faster": shown to a user


def build_at_k(samples: Sequence[Sample], k: int) -> float:
    return at_least_one(len(samples), sum(s.built for s in samples), k)


def pass_at_k(samples: Sequence[Sample], k: int) -> float:
    return at_least_one(len(samples), sum(s.correct for s in samples), k)


def speedup_at_k(samples: Sequence[Sample], k: int) -> float:
    return expected_max([s.speedup if s.correct and s.speedup is not None else 0.0 for s in samples], k)


def geomean(values: Sequence[float]) -> float | None:
    positive = [v for v in values if v > 0]
    if not positive:
        return None
    return math.exp(sum(math.log(v) for v in positive) / len(positive))


@dataclass
class Report:
    problems: int
    samples_per_problem: int
    build: dict[int, float]
    passed: dict[int, float]
    speedup: dict[int, float]
    suggestion_geomean: float | None
    suggestions: int

    def to_dict(self) -> dict[str, object]:
        return {
            "problems": self.problems,
            "samples_per_problem": self.samples_per_problem,
            **{f"build@{k}": v for k, v in self.build.items()},
            **{f"pass@{k}": v for k, v in self.passed.items()},
            **{f"speedup_n@{k}": v for k, v in self.speedup.items()},
            "suggestion_geomean_speedup": self.suggestion_geomean,
            "suggestions": self.suggestions,
        }


def report(per_problem: Sequence[Sequence[Sample]], ks: Sequence[int]) -> Report:
    """Average the estimators over problems; every problem needs at least max(ks) samples."""
    if not per_problem:
        raise ValueError("no problems to score")
    n = min(len(s) for s in per_problem)
    ks = [k for k in ks if k <= n]
    if not ks:
        raise ValueError(f"every k exceeds the {n} samples per problem")

    def mean(fn) -> dict[int, float]:  # type: ignore[no-untyped-def]
        return {k: sum(fn(s, k) for s in per_problem) / len(per_problem) for k in ks}

    suggested = [x.speedup for s in per_problem for x in s if x.suggested and x.speedup]
    return Report(
        problems=len(per_problem),
        samples_per_problem=n,
        build=mean(build_at_k),
        passed=mean(pass_at_k),
        speedup=mean(speedup_at_k),
        suggestion_geomean=geomean(suggested),  # type: ignore[arg-type]
        suggestions=len(suggested),
    )
