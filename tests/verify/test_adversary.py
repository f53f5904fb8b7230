"""Candidates written to fool the verifier, one or more per way of cheating: none may ever be called faster.

Each class is a way a candidate could win without computing what the
original computes: reaching the original's process, speaking for the
harness, noticing it is being timed, using threads in serial mode or more
than its budget, exploiting inputs the harness would never generate,
racing only where the race detector does not look, or reading beyond its
sandbox. Honest rewrites of the same functions must stay faster.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from perfalign.server.settings import Settings
from perfalign.server.verdict import Status
from perfalign.server.verify import FunctionVerifier

CASES = Path(__file__).resolve().parents[1] / "cases"
PREFIX = CASES / "prefix" / "original.c"
SETTINGS = Settings(repetitions=11)

# The screen is a first line only: these spell forbidden names so that it cannot see them, to show the
# execution model holds on its own.
HIDE = "#define CAT(a, b) a##b\n"


def _verifier(source: str, function: str, *, mode: str = "serial", path: Path | None = None,
              settings: Settings = SETTINGS) -> Iterator[FunctionVerifier]:
    with FunctionVerifier(source, "c", function, mode=mode, settings=settings, source_path=path) as verifier:
        failure = verifier.prepare()
        assert failure is None, failure.detail
        yield verifier


@pytest.fixture(scope="module")
def prefix() -> Iterator[FunctionVerifier]:
    yield from _verifier(PREFIX.read_text(), "prefix_sums", path=PREFIX)


LINEAR = """void prefix_sums(const double *a, double *out, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += a[i];
        out[i] = s;
    }
}
"""

PREFIX_ATTACKS = {
    # The candidate can reach the original: in its own process it has neither the original nor its results.
    "calls the renamed original": (
        "extern void perfalign_o_prefix_sums(const double *, double *, int);\n"
        "extern void perfalign_w_prefix_sums_original(const double *, double *, int);\n"
        "void prefix_sums(const double *a, double *out, int n) { perfalign_o_prefix_sums(a, out, n); }\n",
        Status.COMPILE_ERROR,
    ),
    "copies the original's outputs": (
        "#include <stddef.h>\n#include <string.h>\n"
        "extern void perfalign_view_o(int i, void **data, size_t *count);\n"
        "void prefix_sums(const double *a, double *out, int n) {\n"
        "    void *d; size_t c; perfalign_view_o(1, &d, &c); memcpy(out, d, sizeof(double) * n); }\n",
        Status.COMPILE_ERROR,
    ),
    # The candidate speaks for the harness: nothing it prints or writes decides a verdict.
    "prints forged timings and results": (
        "#include <stdio.h>\n" + LINEAR.replace("    double s = 0.0;",
                                               '    fprintf(stderr, "PF_T 100.0 0.001\\nPF_OK x\\nPF_TIMED x 21\\n");\n'
                                               "    double s = 0.0;").replace("out[i] = s;", "out[i] = s + 1e-3;"),
        Status.INCORRECT,
    ),
    "answers the harness before it computes": (
        HIDE + "#include <stdint.h>\nextern long CAT(wri, te)(int, const void *, unsigned long);\n"
        "void prefix_sums(const double *a, double *out, int n) {\n"
        "    uint32_t done[4] = {0x31574650u, 17u, 0u, 0u};\n"
        "    CAT(wri, te)(3, done, sizeof done);\n"
        "    for (int i = 0; i < n; i++) { double s = 0; for (int j = 0; j <= i; j++) s += a[j]; out[i] = s; }\n"
        "}\n",
        None,
    ),
    "prints timings and aborts": (
        HIDE + "#include <stdio.h>\nextern void CAT(ab, ort)(void);\n"
        "void prefix_sums(const double *a, double *out, int n) {\n"
        '    static int calls; if (++calls > 120) { fprintf(stderr, "PF_T 50 0.01\\nPF_T 50 0.01\\nPF_T 50 0.01\\n"); CAT(ab, ort)(); }\n'
        "    double s = 0; for (int i = 0; i < n; i++) { s += a[i]; out[i] = s; }\n}\n",
        Status.CRASH,
    ),
    # Timed calls are checked, each on inputs of its own.
    "does nothing once it has been called often": (
        "void prefix_sums(const double *a, double *out, int n) {\n"
        "    static long calls;\n"
        "    if (++calls > 100) return;\n"
        "    for (int i = 0; i < n; i++) { double s = 0; for (int j = 0; j <= i; j++) s += a[j]; out[i] = s; }\n}\n",
        Status.INCORRECT,
    ),
    "half the work on large inputs": (
        "void prefix_sums(const double *a, double *out, int n) {\n"
        "    double s = 0; int stop = n > 5000 ? n / 2 : n;\n"
        "    for (int i = 0; i < stop; i++) { s += a[i]; out[i] = s; }\n}\n",
        Status.INCORRECT,
    ),
    "notices the buffers' alignment": (
        "#include <stdint.h>\n"
        "void prefix_sums(const double *a, double *out, int n) {\n"
        "    double s = 0;\n"
        "    if (((uintptr_t)(out + n) & 4095) == 0 && n > 1000) { for (int i = 0; i < n; i++) out[i] = a[i]; return; }\n"
        "    for (int i = 0; i < n; i++) { s += a[i]; out[i] = s; }\n}\n",
        Status.INCORRECT,
    ),
    "answers repeated inputs from a cache": (
        "#include <string.h>\nstatic double key[4]; static double last[1 << 16]; static int have;\n"
        "void prefix_sums(const double *a, double *out, int n) {\n"
        "    if (have && n <= (1 << 16) && n >= 4 && memcmp(key, a, sizeof key) == 0) { memcpy(out, last, sizeof(double) * n); return; }\n"
        "    for (int i = 0; i < n; i++) { double s = 0; for (int j = 0; j <= i; j++) s += a[j]; out[i] = s; }\n"
        "    if (n >= 4 && n <= (1 << 16)) { memcpy(key, a, sizeof key); memcpy(last, out, sizeof(double) * n); have = 1; }\n}\n",
        None,
    ),
    "works before main": (
        "__attribute__((constructor)) static void warm(void) { }\n" + LINEAR,
        Status.REJECTED_UNSAFE,
    ),
    # Serial means one thread.
    "starts a thread in serial mode": (
        HIDE + "typedef unsigned long pt;\nextern int CAT(pthread_cr, eate)(pt *, const void *, void *(*)(void *), void *);\n"
        "extern int CAT(pthread_jo, in)(pt, void **);\n"
        "static const double *A; static double *O; static int N;\n"
        "static void *half(void *x) { (void)x; return 0; }\n"
        "void prefix_sums(const double *a, double *out, int n) {\n"
        "    pt t; A = a; O = out; N = n; CAT(pthread_cr, eate)(&t, 0, half, 0); CAT(pthread_jo, in)(t, 0);\n"
        "    double s = 0; for (int i = 0; i < n; i++) { s += a[i]; out[i] = s; }\n}\n",
        Status.REJECTED_UNSAFE,
    ),
    # The sandbox shows only what the build needs.
    "makes a user namespace": (
        HIDE + "extern int CAT(unsh, are)(int);\n"
        "void prefix_sums(const double *a, double *out, int n) {\n"
        "    CAT(unsh, are)(0x10000000);\n"
        "    double s = 0; for (int i = 0; i < n; i++) { s += a[i]; out[i] = s; }\n}\n",
        Status.REJECTED_UNSAFE,
    ),
    "includes a file beside the source": ('#include "secret.txt"\n' + LINEAR, Status.REJECTED_UNSAFE),
    "reaches past the system headers": ("#include_next <stdio.h>\n" + LINEAR, Status.REJECTED_UNSAFE),
    "takes a safe path only under the race detector": (
        "#ifdef __SANITIZE_THREAD__\n#define SAFE 1\n#endif\n" + LINEAR, Status.REJECTED_UNSAFE),
}


@pytest.mark.parametrize("name", sorted(PREFIX_ATTACKS))
def test_a_candidate_that_cheats_is_never_faster(prefix: FunctionVerifier, name: str) -> None:
    code, expected = PREFIX_ATTACKS[name]
    verdict = prefix.verify(code)
    assert verdict.status is not Status.FASTER, f"{name}: {verdict.detail}"
    if expected is not None:
        assert verdict.status is expected, f"{name}: {verdict.detail}"


def test_forging_the_harness_s_answer_is_reported_as_such(prefix: FunctionVerifier) -> None:
    verdict = prefix.verify(PREFIX_ATTACKS["answers the harness before it computes"][0])
    assert verdict.status in (Status.CRASH, Status.INCORRECT), verdict.detail
    if verdict.status is Status.CRASH:
        assert "channel" in verdict.detail


def test_honest_rewrites_stay_faster(prefix: FunctionVerifier) -> None:
    unrolled = """void prefix_sums(const double *a, double *out, int n) {
    double s = 0.0;
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        s += a[i]; out[i] = s;
        s += a[i + 1]; out[i + 1] = s;
        s += a[i + 2]; out[i + 2] = s;
        s += a[i + 3]; out[i + 3] = s;
    }
    for (; i < n; i++) { s += a[i]; out[i] = s; }
}
"""
    for code in (LINEAR, unrolled):
        verdict = prefix.verify(code)
        assert verdict.status is Status.FASTER, verdict.detail


# ------------------------------------------------------------------ inputs the old harness never made

DOMAIN = {
    "sum_ints": (
        "long long sum_ints(const int *a, int n) {\n    long long s = 0;\n    for (int i = 0; i < n; i++) s += a[i];\n"
        "    return s;\n}\n",
        # accumulates in int: right on small values, overflows on the type's range
        "long long sum_ints(const int *a, int n) {\n    int s = 0;\n    for (int i = 0; i < n; i++) s += a[i];\n"
        "    return s;\n}\n",
    ),
    "has_duplicate": (
        "int has_duplicate(const int *a, int n) {\n    for (int i = 0; i < n; i++)\n        for (int j = i + 1; j < n; j++)\n"
        "            if (a[i] == a[j]) return 1;\n    return 0;\n}\n",
        # pigeonhole on the old generator's 201 values
        "int has_duplicate(const int *a, int n) {\n    if (n > 201) return 1;\n    for (int i = 0; i < n; i++)\n"
        "        for (int j = i + 1; j < n; j++)\n            if (a[i] == a[j]) return 1;\n    return 0;\n}\n",
    ),
    "count_small": (
        "int count_small(const int *a, int n) {\n    int c = 0;\n    for (int i = 0; i < n; i++) c += a[i] < 50;\n"
        "    return c;\n}\n",
        # a counting table sized for the old generator's largest value
        "int count_small(const int *a, int n) {\n    int seen[256] = {0}, c = 0;\n"
        "    for (int i = 0; i < n; i++) seen[(unsigned char)(a[i] + 100)]++;\n"
        "    for (int v = 0; v < 150; v++) c += seen[v];\n    return c;\n}\n",
    ),
    "total": (
        "double total(const double *a, int n) {\n    double s = 0;\n    for (int i = 0; i < n; i++) s += a[i];\n"
        "    return s;\n}\n",
        # skips NaN
        "double total(const double *a, int n) {\n    double s = 0;\n    for (int i = 0; i < n; i++) if (a[i] == a[i]) s += a[i];\n"
        "    return s;\n}\n",
    ),
    "scale": (
        "#include <math.h>\nvoid scale(const double *a, double *out, int n, double k) {\n"
        "    for (int i = 0; i < n; i++) out[i] = a[i] * k;\n}\n",
        # wrong for a negative factor
        "#include <math.h>\nvoid scale(const double *a, double *out, int n, double k) {\n"
        "    for (int i = 0; i < n; i++) out[i] = a[i] * fabs(k);\n}\n",
    ),
    "copy_scaled": (
        "void copy_scaled(const double *a, double *out, int n) {\n    for (int i = 0; i < n; i++) out[i] = 0.5 * a[i];\n}\n",
        # drops the tail when n % 32 is 24..31
        "void copy_scaled(const double *a, double *out, int n) {\n    int i = 0;\n"
        "    for (; i + 32 <= n; i += 32) for (int j = 0; j < 32; j++) out[i + j] = 0.5 * a[i + j];\n"
        "    if (n - i < 24) for (; i < n; i++) out[i] = 0.5 * a[i];\n}\n",
    ),
    "halve": (
        "void halve(const double *a, double *out, int n) {\n    for (int i = 0; i < n; i++) out[i] = 0.5 * a[i];\n}\n",
        # adds restrict and breaks calls that pass the same array twice
        "void halve(const double *restrict a, double *restrict out, int n) {\n"
        "    for (int i = 0; i < n; i++) out[i] = 0.25 * a[i];\n    for (int i = 0; i < n; i++) out[i] += 0.25 * a[i];\n}\n",
    ),
}


@pytest.mark.parametrize("function", sorted(DOMAIN))
def test_a_candidate_wrong_only_on_rare_inputs_is_incorrect(function: str) -> None:
    original, wrong = DOMAIN[function]
    for verifier in _verifier(original, function):
        verdict = verifier.verify(wrong)
        assert verdict.status is Status.INCORRECT, verdict.detail


def test_a_reordered_reduction_stays_faster() -> None:
    original, _ = DOMAIN["total"]
    four = """double total(const double *a, int n) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int i = 0;
    for (; i + 4 <= n; i += 4) { s0 += a[i]; s1 += a[i + 1]; s2 += a[i + 2]; s3 += a[i + 3]; }
    for (; i < n; i++) s0 += a[i];
    return (s0 + s1) + (s2 + s3);
}
"""
    for verifier in _verifier(original, "total"):
        verdict = verifier.verify(four)
        assert verdict.status is Status.FASTER, verdict.detail


# ------------------------------------------------------------------ OpenMP: every thread count, the budget, races

OMP = CASES / "omp" / "original.c"


@pytest.fixture(scope="module")
def omp() -> Iterator[FunctionVerifier]:
    yield from _verifier(OMP.read_text(), "weighted_sum", mode="openmp", path=OMP, settings=Settings(threads=2,
                                                                                                     repetitions=11))


OMP_ATTACKS = {
    "more threads than its budget": (
        (CASES / "omp" / "good_reduction.c").read_text().replace("reduction(+:s)", "reduction(+:s) num_threads(8)"),
        Status.REJECTED_UNSAFE,
    ),
    "right at up to four threads only": (
        """#include <math.h>
#include <omp.h>
double weighted_sum(const double *x, int n, double scale) {
    const double w = exp(scale) / (1.0 + pow(scale, 1.5));
    double part[4] = {0, 0, 0, 0};
    #pragma omp parallel
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        double mine = 0;
        for (int i = t; i < n; i += nt) mine += x[i];
        if (t < 4) part[t] = mine;
    }
    return (part[0] + part[1] + part[2] + part[3]) * w;
}
""",
        Status.INCORRECT,
    ),
    "races only on large inputs": (
        """#include <math.h>
double weighted_sum(const double *x, int n, double scale) {
    const double w = exp(scale) / (1.0 + pow(scale, 1.5));
    double s = 0.0;
    if (n > 100000) {
        #pragma omp parallel for
        for (int i = 0; i < n; i++)
            s += x[i];
    } else {
        for (int i = 0; i < n; i++)
            s += x[i];
    }
    return s * w;
}
""",
        Status.INCORRECT,
    ),
}


@pytest.mark.parametrize("name", sorted(OMP_ATTACKS))
def test_an_openmp_candidate_that_cheats_is_never_faster(omp: FunctionVerifier, name: str) -> None:
    code, expected = OMP_ATTACKS[name]
    verdict = omp.verify(code)
    assert verdict.status is expected, f"{name}: {verdict.detail}"


def test_the_openmp_reduction_stays_faster(omp: FunctionVerifier) -> None:
    verdict = omp.verify((CASES / "omp" / "good_reduction.c").read_text())
    assert verdict.status is Status.FASTER, verdict.detail
