"""Originals with preconditions, against real gcc: where the original fails only at boundary values of an integer
parameter (0, negative values), it is verified where it works, and the verdict says so."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from perfalign.server.settings import Settings
from perfalign.server.verdict import TIMED, Status
from perfalign.server.verify import FunctionVerifier, verify_source
from perfalign.server.verify.harness import _cases
from perfalign.server.verify.harness._units import ScalarProfile
from perfalign.server.verify.judging._pair import Outcome, Pair

QUICK = Settings(min_time_ms=1.0)

# k is a scalar the original divides by: it traps at k = 0 and works for every other value.
CHUNKS = """void scale_by_chunks(const int *a, int *out, int n, int k) {
    int chunks = n / k;
    for (int i = 0; i < n; i++) out[i] = a[i] * chunks;
}
"""
# k is a length the original takes a remainder by (a[i % k]): it traps at k = 0.
FOLD = """void fold(const double *a, double *out, int n, int k) {
    for (int i = 0; i < n; i++) out[i] = a[i % k];
}
"""
# shift may be negative: the original then reads before the start of a.
ROTATE = """void rotate(const double *a, double *out, int n, int shift) {
    for (int i = 0; i < n; i++) {
        int j = (i + shift) % n;
        out[i] = a[j];
    }
}
"""
# Assumes every word starts with a lower-case letter: the generated words (spaces, upper case, empty) do not.
INITIALS = """#include <array>
#include <string>
#include <vector>

void initial_counts(const std::vector<std::string> &words, std::array<long, 26> &counts) {
    for (const std::string &w : words) counts[w[0] - 'a'] += 1;
}
"""
# Fails whatever k is.
NEVER = """int ratio(const int *a, int n, int k) {
    int s = 0;
    for (int i = 0; i < n; i++) s += a[i];
    return s / (k - k);
}
"""
# Right for k >= 3 only: where the original's callers never go below 3, it is a fine rewrite.
FROM_THREE = CHUNKS.replace("out[i] = a[i] * chunks;\n", "out[i] = a[i] * chunks;\n    if (k < 3 && n > 0) out[0] = -1;\n")


def _verifier(source: str, function: str) -> Iterator[FunctionVerifier]:
    with FunctionVerifier(source, "c", function, settings=QUICK) as verifier:
        failure = verifier.prepare()
        assert failure is None, failure.detail
        yield verifier


@pytest.fixture(scope="module")
def chunks() -> Iterator[FunctionVerifier]:
    yield from _verifier(CHUNKS, "scale_by_chunks")


def test_an_original_that_divides_by_k_is_verified_on_k_of_1_and_more(chunks: FunctionVerifier) -> None:
    note = "inputs with k ≥ 1: the original trips undefined behaviour (division by zero) at k = 0"
    verdict = chunks.verify(CHUNKS)
    assert verdict.status in TIMED, verdict.detail
    assert note in verdict.detail
    assert "not checked on zero scalars" not in verdict.detail  # the other scalars still meet 0


def test_a_candidate_that_fails_where_the_original_works_still_fails(chunks: FunctionVerifier) -> None:
    crashes = CHUNKS.replace("    int chunks = n / k;\n",
                             "    int chunks = n / k;\n    if (k == 1) { volatile int *p = 0; *p = 1; }\n")
    verdict = chunks.verify(crashes)
    assert verdict.status is Status.CRASH, verdict.detail
    assert "inputs with k ≥ 1" in verdict.detail
    wrong = chunks.verify(FROM_THREE)
    assert wrong.status is Status.INCORRECT, wrong.detail


def test_a_stated_minimum_wins_over_the_learned_one() -> None:
    for verifier in _verifier("/* perfalign: min(k)=3 */\n" + CHUNKS, "scale_by_chunks"):
        assert verifier._prepared is not None and "k" not in verifier._prepared.plan.floors
        verdict = verifier.verify(FROM_THREE)
        assert verdict.status in TIMED, verdict.detail
        assert "k ≥" not in verdict.detail


def test_a_length_the_original_takes_a_remainder_by_starts_at_1() -> None:
    for verifier in _verifier(FOLD, "fold"):
        verdict = verifier.verify(FOLD)
        assert verdict.status in TIMED, verdict.detail
        assert "inputs with k ≥ 1: the original trips undefined behaviour (division by zero) at k = 0" in verdict.detail


def test_an_original_that_reads_out_of_bounds_for_negative_values_is_verified_from_0() -> None:
    for verifier in _verifier(ROTATE, "rotate"):
        verdict = verifier.verify(ROTATE)
        assert verdict.status in TIMED, verdict.detail
        assert "inputs with shift ≥ 0: the original reads or writes out of bounds of 'a'" in verdict.detail
        assert "at shift < 0" in verdict.detail


def test_an_original_that_fails_for_every_value_is_refused_with_the_reason() -> None:
    with FunctionVerifier(NEVER, "c", "ratio", settings=QUICK) as verifier:
        failure = verifier.prepare()
    assert failure is not None and failure.status is Status.UNSUPPORTED
    assert "the original fails on ordinary inputs" in failure.detail
    assert "division by zero" in failure.detail and "\n" not in failure.detail


def test_a_crash_of_the_original_on_a_timed_input_is_never_the_candidate_s(chunks: FunctionVerifier) -> None:
    # The same program on both sides; the second timed call has k = 0, and there the candidate is called first.
    prepared = chunks._prepared
    assert prepared is not None
    plan = prepared.plan
    k = next(pp.index for pp in plan.params if pp.param.name == "k")
    good = _cases.case(plan, 64, 1)
    bad = _cases.case(plan, 64, 2, floors={k: _cases.FREE}, scalars=ScalarProfile.ZERO)
    runner = chunks.runner
    original = runner.start(prepared.original_exe, "the original", threads=1, lockdown="serial")
    candidate = runner.start(prepared.original_exe, "the candidate", threads=1, lockdown="serial")
    try:
        original.hello()
        candidate.hello()
        pair = Pair(original, candidate, prepared.iface, plan, prepared.choice, prepared.rtol)
        outcome = pair.time([good, bad], 0, 10.0, 3.0, 1)
    finally:
        original.close()
        candidate.close()
    assert isinstance(outcome, Outcome) and outcome.kind == "original", outcome
    assert "the original failed on a timed input" in outcome.detail and "SIGFPE" in outcome.detail


def test_an_original_that_fails_on_generated_contents_is_refused_naming_the_original() -> None:
    # The contents are never narrowed on their own, and the original's failure is never a crash of the candidate.
    verdict = verify_source(INITIALS, "cpp", "initial_counts", INITIALS, settings=QUICK)
    assert verdict.status is Status.UNSUPPORTED, verdict.detail
    assert verdict.detail.startswith("the original fails on ordinary inputs"), verdict.detail
    assert "out of bounds" in verdict.detail and "range(a)=LO..HI" in verdict.detail


def test_an_original_that_still_fails_above_its_boundary_values_is_refused_with_the_fix() -> None:
    source = CHUNKS.replace("int chunks = n / k;", "int chunks = n / (k * (k - 1) * (k - 2) * (k - 3));")
    with FunctionVerifier(source, "c", "scale_by_chunks", settings=QUICK) as verifier:
        failure = verifier.prepare()
    assert failure is not None and failure.status is Status.UNSUPPORTED
    assert "the original fails at k = 0, k = 1, k = 2 and again on inputs with k ≥ 3" in failure.detail, failure.detail
    assert "min(k)=K" in failure.detail


# Reads its first element before the loop to its size: it needs a vector of at least one element, and its work
# grows with the vector (an argmin, as search code writes it).
CLOSEST = """#include <cmath>
#include <vector>
size_t closest(std::vector<double> const &x) {
    size_t index = 0;
    double best = std::abs(x[0] - 3.14);
    for (size_t i = 1; i < x.size(); ++i) {
        double d = std::abs(x[i] - 3.14);
        if (d < best) {
            best = d;
            index = i;
        }
    }
    return index;
}
"""


def test_a_vector_read_at_its_first_element_is_driven_at_the_problem_size_from_one_element() -> None:
    # Sized by its x[0] alone, every input had one element: each call did nothing, identical code timed as slower,
    # and a rewrite that returns 0 was correct on every case.
    with FunctionVerifier(CLOSEST, "cpp", "closest", settings=QUICK) as verifier:
        assert verifier.prepare() is None
        prepared = verifier._prepared
        assert prepared is not None
        assert prepared.plan.describe_sizes(prepared.choice) == "size(x)=N"
        assert prepared.problem_size >= 10_000
        assert "sizes of 0 are not checked (the original reads an element even then)" in prepared.notes
        verdict = verifier.verify("size_t closest(std::vector<double> const &x) { return 0; }")
        assert verdict.status is Status.INCORRECT, verdict.detail
        assert verifier.verify(CLOSEST.split("#include <vector>\n", 1)[1]).status in TIMED
