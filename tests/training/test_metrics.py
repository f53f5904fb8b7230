"""The evaluation estimators against values worked out by hand."""
from __future__ import annotations

import itertools
import math

import pytest

from perfalign.training.evaluate._metrics import (
    Sample,
    at_least_one,
    build_at_k,
    expected_max,
    geomean,
    pass_at_k,
    report,
    speedup_at_k,
)


def test_pass_at_1_is_the_fraction_correct() -> None:
    samples = [Sample(True, True, 1.2), Sample(True, False), Sample(False, False), Sample(True, True, 0.9)]
    assert pass_at_k(samples, 1) == pytest.approx(0.5)
    assert build_at_k(samples, 1) == pytest.approx(0.75)


def test_pass_at_k_greater_than_one_by_hand() -> None:
    # n=5, c=2, k=2: 1 - C(3,2)/C(5,2) = 1 - 3/10
    assert at_least_one(5, 2, 2) == pytest.approx(0.7)
    # n=4, c=1, k=3: 1 - C(3,3)/C(4,3) = 1 - 1/4
    assert at_least_one(4, 1, 3) == pytest.approx(0.75)
    # more good samples than k can miss
    assert at_least_one(4, 2, 3) == 1.0
    assert at_least_one(4, 0, 4) == 0.0


def test_speedup_at_k_counts_incorrect_samples_as_zero() -> None:
    samples = [Sample(True, True, 2.0), Sample(True, False, 5.0), Sample(False, False), Sample(True, True, 1.0)]
    # k=1: mean of (2, 0, 0, 1)
    assert speedup_at_k(samples, 1) == pytest.approx(0.75)
    # k=2: the six pairs' maxima: (2,0)=2 (2,0)=2 (2,1)=2 (0,0)=0 (0,1)=1 (0,1)=1 -> 8/6
    assert speedup_at_k(samples, 2) == pytest.approx(8 / 6)
    # k=n: the best correct one
    assert speedup_at_k(samples, 4) == pytest.approx(2.0)


def test_expected_max_matches_enumeration() -> None:
    values = [0.0, 0.5, 1.3, 1.3, 2.7, 0.0, 4.1]
    for k in range(1, len(values) + 1):
        subsets = list(itertools.combinations(values, k))
        brute = sum(max(s) for s in subsets) / len(subsets)
        assert expected_max(values, k) == pytest.approx(brute)


def test_report_averages_over_problems_and_geomeans_suggestions() -> None:
    a = [Sample(True, True, 4.0, suggested=True), Sample(True, False), Sample(True, True, 1.0)]
    b = [Sample(False, False), Sample(True, True, 1.0, suggested=True), Sample(True, True, 0.5)]
    r = report([a, b], ks=[1, 2, 5])
    assert r.samples_per_problem == 3
    assert set(r.passed) == {1, 2}  # k=5 > n is dropped
    assert r.passed[1] == pytest.approx((2 / 3 + 2 / 3) / 2)
    assert r.build[2] == pytest.approx((1.0 + 1.0) / 2)
    # problem a, k=2: pairs (4,0)=4 (4,1)=4 (0,1)=1 -> 3; problem b: (0,1)=1 (0,.5)=.5 (1,.5)=1 -> 2.5/3
    assert r.speedup[2] == pytest.approx((3.0 + 2.5 / 3) / 2)
    assert r.suggestion_geomean == pytest.approx(math.sqrt(4.0 * 1.0))
    assert r.to_dict()["speedup_n@1"] == pytest.approx(((4 + 0 + 1) / 3 + (0 + 1 + 0.5) / 3) / 2)


def test_estimators_reject_impossible_inputs() -> None:
    with pytest.raises(ValueError):
        at_least_one(3, 4, 1)
    with pytest.raises(ValueError):
        expected_max([1.0, 2.0], 3)
    assert geomean([]) is None
