"""Comparing two workers' arrays, a chunk at a time: the same answers as comparing them whole."""
from __future__ import annotations

import numpy as np
import pytest

from perfalign.server.verify.judging._compare import CHUNK, first_difference, lower_precision

N = 3 * CHUNK + 17  # several chunks and a short last one


@pytest.mark.parametrize("shape", [(N,), (N, 3)], ids=["array", "array-field"])
@pytest.mark.parametrize("where", [0, CHUNK - 1, CHUNK, 2 * CHUNK + 5, N - 1])
def test_the_first_wrong_element_is_found_at_its_index_in_any_chunk(shape: tuple[int, ...], where: int) -> None:
    rng = np.random.default_rng(where)
    expected = rng.standard_normal(shape)
    got = expected * (1 + 1e-12)  # within the tolerance everywhere
    flat = got.reshape(-1)
    flat[where] += 1.0
    flat[-1] += 1.0  # a later difference is not the first
    assert first_difference(expected, got, None) == where
    assert first_difference(expected, expected.copy(), None) is None
    assert first_difference(expected, expected * (1 + 1e-12), None) is None


def test_the_largest_magnitude_of_any_chunk_sets_the_tolerance() -> None:
    expected = np.full(N, 1e-3)
    expected[-1] = 1e6  # in the last chunk: 1e-6 of it is 1.0
    got = expected.copy()
    got[5] += 0.5
    assert first_difference(expected, got, None) is None
    got[5] += 1.0
    assert first_difference(expected, got, None) == 5


def test_a_double_array_computed_in_single_precision_is_told_from_a_reordered_one() -> None:
    expected = np.random.default_rng(3).standard_normal(N) * 100
    single = expected.astype(np.float32).astype(np.float64)
    reordered = expected * (1 + np.random.default_rng(4).standard_normal(N) * 1e-16)
    assert lower_precision(expected, single)
    assert first_difference(expected, single, None) is not None
    assert not lower_precision(expected, reordered)
    assert first_difference(expected, reordered, None) is None


@pytest.mark.parametrize("low, high", [(0.5, 1.5), (0.5, 1.6), (0.2, 1.9)])
def test_an_even_split_at_the_limit_is_decided_by_the_two_middle_differences_as_the_median_does(
        low: float, high: float) -> None:
    # Half the elements differ by low * 1e-8 of themselves, half by high * 1e-8: the median is their mean.
    limit = 1e-8
    expected = np.ones(2 * CHUNK + 2)
    rel = np.concatenate([np.full(CHUNK + 1, low * limit), np.full(CHUNK + 1, high * limit)])
    np.random.default_rng(5).shuffle(rel)
    got = expected + rel
    relative = np.abs(expected - got) / expected
    assert lower_precision(expected, got) == (float(np.median(relative)) > limit)
