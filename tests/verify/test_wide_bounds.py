"""Integer originals that overflow on the widest inputs, against real gcc: candidates are checked on wide inputs up
to the largest magnitudes the original takes without overflowing, not on the small default values alone."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from perfalign.server.settings import Settings
from perfalign.server.verdict import TIMED, Status
from perfalign.server.verify import FunctionVerifier

QUICK = Settings(min_time_ms=1.0)

# Widens every product to 64 bits: overflows on ints over their whole range once there are enough terms.
SUM_PRODUCTS = """long long sum_products(const int *a, const int *b, int n) {
    long long s = 0;
    for (int i = 0; i < n; i++) s += (long long)a[i] * b[i];
    return s;
}
"""
# Multiplies in 32 bits, then widens: right for the small default values, wrong for products above 2^31.
NARROW_PRODUCTS = SUM_PRODUCTS.replace("(long long)a[i] * b[i]", "(long long)(a[i] * b[i])")
# The same 64-bit arithmetic with four accumulators.
UNROLLED = """long long sum_products(const int *a, const int *b, int n) {
    long long s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += (long long)a[i] * b[i];
        s1 += (long long)a[i + 1] * b[i + 1];
        s2 += (long long)a[i + 2] * b[i + 2];
        s3 += (long long)a[i + 3] * b[i + 3];
    }
    for (; i < n; i++) s0 += (long long)a[i] * b[i];
    return (s0 + s1) + (s2 + s3);
}
"""
# Each element weighs three times the next: clean on the ordinary sizes it is tried at, but over 40 elements it
# overflows whatever the magnitude of its inputs (0 aside).
POWERS = """long long base3(const int *a, int n) {
    long long s = 0;
    for (int i = 0; i < n; i++) s = s * 3 + a[i];
    return s;
}
"""


@pytest.fixture(scope="module")
def sums() -> Iterator[FunctionVerifier]:
    with FunctionVerifier(SUM_PRODUCTS, "c", "sum_products", settings=QUICK) as verifier:
        failure = verifier.prepare()
        assert failure is None, failure.detail
        yield verifier


def test_the_original_is_checked_on_wide_inputs_up_to_where_it_overflows(sums: FunctionVerifier) -> None:
    verdict = sums.verify(UNROLLED)
    assert verdict.status in TIMED, verdict.detail
    assert "checked on wide inputs up to ±2^" in verdict.detail
    assert "the original overflows beyond (signed integer overflow" in verdict.detail
    assert "not checked on wide inputs" not in verdict.detail


def test_a_candidate_that_multiplies_in_32_bits_is_incorrect(sums: FunctionVerifier) -> None:
    verdict = sums.verify(NARROW_PRODUCTS)
    assert verdict.status is Status.INCORRECT, verdict.detail
    assert "wide inputs up to ±2^" in verdict.detail


def test_a_candidate_that_accumulates_in_32_bits_is_incorrect(sums: FunctionVerifier) -> None:
    narrow = SUM_PRODUCTS.replace("long long s = 0;", "int s = 0;").replace("(long long)a[i] * b[i]", "a[i] * b[i]")
    verdict = sums.verify(narrow)
    assert verdict.status is Status.INCORRECT, verdict.detail


def test_an_original_that_overflows_at_every_magnitude_is_refused_with_the_reason() -> None:
    with FunctionVerifier(POWERS, "c", "base3", settings=QUICK) as verifier:
        failure = verifier.prepare()
    assert failure is not None and failure.status is Status.UNSUPPORTED
    assert "the original overflows on wide integer inputs of every magnitude above" in failure.detail
    assert "signed integer overflow" in failure.detail and "range(a)=" in failure.detail
    assert "\n" not in failure.detail
