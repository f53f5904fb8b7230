"""A rewrite keeps the original's accuracy on ill-conditioned inputs; an honest reassociation stays correct."""
from __future__ import annotations

import pytest

from perfalign.server import cparse
from perfalign.server.settings import Settings
from perfalign.server.verdict import TIMED, Status
from perfalign.server.verify._verifier import FunctionVerifier
from perfalign.server.verify.harness._cases import LARGE_PROFILE_SIZES
from perfalign.server.verify.harness._units import ArrayProfile
from perfalign.server.verify.harness._plan import make_plan
from perfalign.server.verify.judging._accuracy import reference_source

# Neumaier's compensated sum (Ogita, Rump and Oishi's Sum2): accurate as if summed at twice the precision.
TWO_SUM = """double total(const double *a, int n)
{
    double s = 0.0, e = 0.0;
    for (int i = 0; i < n; i++) {
        double t = s + a[i];
        double z = t - s;
        e += (s - (t - z)) + (a[i] - z);
        s = t;
    }
    return s + e;
}
"""

KAHAN = """double total(const double *a, int n)
{
    double s = 0.0, c = 0.0;
    for (int i = 0; i < n; i++) {
        double y = a[i] - c;
        double t = s + y;
        c = (t - s) - y;
        s = t;
    }
    return s;
}
"""

PLAIN = """double total(const double *a, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}
"""

FOUR_ACCUMULATORS = """double total(const double *a, int n)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int i = 0;
    for (; i + 3 < n; i += 4) {
        s0 += a[i];
        s1 += a[i + 1];
        s2 += a[i + 2];
        s3 += a[i + 3];
    }
    for (; i < n; i++)
        s0 += a[i];
    return (s0 + s1) + (s2 + s3);
}
"""

OPENMP_REDUCTION = """double total(const double *a, int n)
{
    double s = 0.0;
    #pragma omp parallel for reduction(+:s)
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}
"""


def verify(original: str, candidate: str, mode: str = "serial", min_time_ms: float = 1.0):  # type: ignore[no-untyped-def]
    # 1 ms a call where the test looks at correctness; the default (20 ms) where it looks at a speedup.
    settings = Settings(threads=2, min_time_ms=min_time_ms) if mode == "openmp" else Settings(min_time_ms=min_time_ms)
    with FunctionVerifier(original, "c", "total", mode=mode, settings=settings) as verifier:
        return verifier.verify(candidate)


@pytest.mark.parametrize("original", [TWO_SUM, KAHAN], ids=["two-sum", "kahan"])
@pytest.mark.parametrize("candidate", [PLAIN, FOUR_ACCUMULATORS], ids=["plain", "four-accumulators"])
def test_dropping_the_compensation_is_incorrect(original: str, candidate: str) -> None:
    verdict = verify(original, candidate)
    assert verdict.status is Status.INCORRECT, verdict.detail
    assert "loses the original's accuracy" in verdict.detail and "ill-conditioned inputs" in verdict.detail


def test_a_kahan_sum_meets_many_moderate_terms_cancelling_where_its_compensation_matters() -> None:
    # Kahan's compensation is lost whenever a huge term is added, so on a large value and its opposite it is barely
    # more accurate than a plain sum. Many moderate terms cancelling one large value are where it keeps what a
    # plain sum loses at every step: there the original must be held to its accuracy, on every preparation.
    with FunctionVerifier(KAHAN, "c", "total", settings=Settings(min_time_ms=1.0)) as verifier:
        assert verifier.prepare() is None
        prepared = verifier._prepared
        assert prepared is not None
        moderate = [case for case in prepared.check_cases if case.arrays is ArrayProfile.ILL_CONDITIONED
                    and "many moderate ones" in case.describe(prepared.plan)]
        large = [case for case in moderate if case.size >= LARGE_PROFILE_SIZES[0]]
        assert len(large) >= 2, [case.describe(prepared.plan) for case in moderate]
        strict = [case for case in large if prepared.known.levels[case].allowed is not None]
        assert strict, [prepared.known.levels[case] for case in large]


def test_a_plain_sum_reassociated_stays_faster() -> None:
    verdict = verify(PLAIN, FOUR_ACCUMULATORS, min_time_ms=Settings().min_time_ms)
    assert verdict.status is Status.FASTER, verdict.detail
    assert "rounds differently from the original on ill-conditioned inputs" in verdict.detail


def test_an_openmp_reduction_of_a_plain_sum_is_correct() -> None:
    verdict = verify(PLAIN, OPENMP_REDUCTION, mode="openmp")
    assert verdict.status in TIMED, verdict.detail
    assert "rounds differently" in verdict.detail


def test_a_compensated_rewrite_of_a_compensated_sum_is_correct() -> None:
    # The same compensation, split over two interleaved halves: as accurate as the original.
    two_halves = """double total(const double *a, int n)
{
    double s[2] = {0.0, 0.0}, e[2] = {0.0, 0.0};
    for (int i = 0; i < n; i++) {
        int k = i & 1;
        double t = s[k] + a[i];
        double z = t - s[k];
        e[k] += (s[k] - (t - z)) + (a[i] - z);
        s[k] = t;
    }
    double t = s[0] + s[1];
    double z = t - s[0];
    return t + ((s[0] - (t - z)) + (s[1] - z) + e[0] + e[1]);
}
"""
    verdict = verify(TWO_SUM, two_halves)
    assert verdict.status in TIMED, verdict.detail


def test_an_original_that_cannot_be_built_at_a_higher_precision_is_verified_as_before() -> None:
    # "long double" cannot be widened by the reference's macros: no ill-conditioned inputs, the rest as always.
    wide = PLAIN.replace("double s = 0.0;", "long double s = 0.0;")
    verdict = verify(wide, wide)
    assert verdict.status in TIMED, verdict.detail
    assert "ill-conditioned" not in verdict.detail


@pytest.mark.parametrize("source, language, name", [
    ("#include <vector>\ndouble f(const std::vector<double>& v) { double s = 0; for (double x : v) s += x; return s; }",
     "cpp", "f"),
    ("long f(const long *a, int n) { long s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }", "c", "f"),
])
def test_no_reference_where_the_interface_cannot_be_wrapped(source: str, language: str, name: str) -> None:
    plan = make_plan(cparse.find_function(source, language, name=name))
    assert reference_source(plan, [0] * len(plan.params)) is None


def test_the_reference_widens_the_original_behind_its_signature() -> None:
    plan = make_plan(cparse.find_function(TWO_SUM, "c", name="total"))
    text = reference_source(plan, [0, 0])
    assert text is not None
    assert "#define double long double" in text and "perfalign_hp_total(" in text
    assert text.rstrip().endswith("}") and "double total(const double * a, int n) {" in text


EXP_SUM = """#include <math.h>
double total(const double *a, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += exp(a[i]);
    return s;
}
"""


def test_where_ill_conditioned_inputs_overflow_the_original_its_infinity_is_the_result_to_match() -> None:
    # Large finite values overflow exp; long double would not, yet the original's infinity is what a caller gets.
    clamped = EXP_SUM.replace("exp(a[i])", "exp(isfinite(a[i]) ? fmin(a[i], 700.0) : a[i])")
    verdict = verify(EXP_SUM, clamped)
    assert verdict.status is Status.INCORRECT, verdict.detail
    assert "ill-conditioned inputs" in verdict.detail
    four = EXP_SUM.replace("double s = 0.0;\n    for (int i = 0; i < n; i++)\n        s += exp(a[i]);",
                           "double s0 = 0.0, s1 = 0.0;\n    int i = 0;\n"
                           "    for (; i + 1 < n; i += 2) { s0 += exp(a[i]); s1 += exp(a[i + 1]); }\n"
                           "    if (i < n) s0 += exp(a[i]);\n    double s = s0 + s1;")
    assert verify(EXP_SUM, four).status in TIMED
