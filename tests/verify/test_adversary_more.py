"""More candidates written to fool the verifier: attacks on the worker's own process, shortcuts above the sizes
the input profiles used to be tried at, and computing a double function in single precision.

A candidate is linked into the worker that drives it, so it can define
functions the worker (or a library's constructor) calls, run code before the
worker's lockdown, or do its work outside the calls perfalign times: between
a call's answer and the next command, in a signal handler. None of that may
win: the sandbox installs the seccomp filter before the worker runs, the
worker's own system calls never go through functions a candidate can define,
and CPU time a candidate spends outside its calls is charged to them. Each
candidate hides the names the screen looks for, to show that the execution
model holds on its own.
"""
from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from perfalign.server.settings import Settings
from perfalign.server.verdict import Status
from perfalign.server.verify import FunctionVerifier
from perfalign.server.verify.sandbox import _sandbox as sandbox
from perfalign.server.verify.sandbox._seccomp import launch_filter

CASES = Path(__file__).resolve().parents[1] / "cases"
PREFIX = CASES / "prefix" / "original.c"
CPP = CASES / "cpp" / "original.cpp"
SETTINGS = Settings(repetitions=11)
HIDE = "#define CAT(a, b) a##b\n"

QUADRATIC = "    for (int i = 0; i < n; i++) { double s = 0.0; for (int j = 0; j <= i; j++) s += a[j]; out[i] = s; }\n"


def _verifier(source: str, function: str, language: str = "c", path: Path | None = None) -> Iterator[FunctionVerifier]:
    with FunctionVerifier(source, language, function, settings=SETTINGS, source_path=path) as verifier:
        failure = verifier.prepare()
        assert failure is None, failure.detail
        yield verifier


@pytest.fixture(scope="module")
def prefix() -> Iterator[FunctionVerifier]:
    yield from _verifier(PREFIX.read_text(), "prefix_sums", path=PREFIX)


ATTACKS = {
    # The original's whole O(n^2) work, done when the worker reads its next command (after the timed answer).
    "defines read and works before the next command": (
        HIDE + "extern long __read(int, void *, unsigned long);\n"
        "static const double *A; static double *O; static int N, pending;\n"
        "long CAT(re, ad)(int fd, void *buf, unsigned long len) {\n"
        "    if (pending) { const double *a = A; double *out = O; int n = N;\n" + QUADRATIC + "        pending = 0; }\n"
        "    return __read(fd, buf, len);\n}\n"
        "void prefix_sums(const double *a, double *out, int n) { A = a; O = out; N = n; pending = 1; }\n",
        None,
    ),
    # The same work in a timer signal that fires just after the call has answered.
    "works in a timer signal after its answer": (
        HIDE + "typedef void (*handler)(int);\nextern handler CAT(bsd_sig, nal)(int, handler);\n"
        "extern unsigned CAT(ual, arm)(unsigned, unsigned);\n"
        "static const double *A; static double *O; static int N; static volatile int pending;\n"
        "static void later(int sig) { (void)sig; if (!pending) return; { const double *a = A; double *out = O;\n"
        "    int n = N;\n" + QUADRATIC + "} pending = 0; }\n"
        "void prefix_sums(const double *a, double *out, int n) {\n"
        "    static int armed; if (!armed) { CAT(bsd_sig, nal)(14, later); armed = 1; }\n"
        "    if (n < 2000) {\n" + QUADRATIC + "        return; }\n"
        "    A = a; O = out; N = n; pending = 1; CAT(ual, arm)(30, 0);\n}\n",
        None,
    ),
    # getenv decided whether the worker locked itself down; a fork then escaped every check.
    "defines getenv to skip the lockdown, then forks": (
        HIDE + "#include <string.h>\nextern char **CAT(envi, ron);\nextern int CAT(fo, rk)(void);\n"
        "char *CAT(get, env)(const char *name) {\n"
        "    size_t k = strlen(name);\n"
        "    if (strcmp(name, \"PF_LOCKDOWN\") == 0) return 0;\n"
        "    for (char **e = CAT(envi, ron); e && *e; e++)\n"
        "        if (strncmp(*e, name, k) == 0 && (*e)[k] == '=') return *e + k + 1;\n"
        "    return 0;\n}\n"
        "void prefix_sums(const double *a, double *out, int n) {\n"
        "    static int forked; if (!forked) { forked = 1; if (CAT(fo, rk)() == 0) for (;;) { } }\n"
        "    double s = 0; for (int i = 0; i < n; i++) { s += a[i]; out[i] = s; }\n}\n",
        Status.REJECTED_UNSAFE,
    ),
}


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_a_candidate_that_attacks_its_worker_is_never_faster(prefix: FunctionVerifier, name: str) -> None:
    code, expected = ATTACKS[name]
    verdict = prefix.verify(code)
    assert verdict.status is not Status.FASTER, f"{name}: {verdict.detail}"
    if expected is not None:
        assert verdict.status is expected, f"{name}: {verdict.detail}"


def test_a_process_started_before_the_worker_s_constructor_is_refused() -> None:
    # libstdc++ allocates at start-up, before any constructor of the program: a malloc of the candidate's own
    # runs there, before the worker's lockdown, and forked a spinner the filter never saw.
    code = (HIDE + "#include <cstddef>\n#include <vector>\n"
            "extern \"C\" void *__libc_malloc(std::size_t);\nextern \"C\" int CAT(fo, rk)();\n"
            "static int started;\n"
            "extern \"C\" void *CAT(mal, loc)(std::size_t n) {\n"
            "    if (!started) { started = 1; if (CAT(fo, rk)() == 0) for (;;) { } }\n"
            "    return __libc_malloc(n);\n}\n"
            "namespace stats {\n"
            "void centered_squares(const std::vector<double> &in, std::vector<double> &out) {\n"
            "    out.resize(in.size());\n    double mean = 0.0;\n"
            "    for (std::size_t j = 0; j < in.size(); j++) mean += in[j];\n"
            "    mean /= static_cast<double>(in.size());\n"
            "    for (std::size_t i = 0; i < in.size(); i++) { double d = in[i] - mean; out[i] = d * d; }\n}\n}\n")
    for verifier in _verifier(CPP.read_text(), "stats::centered_squares", "cpp", CPP):
        verdict = verifier.verify(code)
        assert verdict.status is Status.REJECTED_UNSAFE, verdict.detail
        honest = verifier.verify((CASES / "cpp" / "good_linear.cpp").read_text())
        assert honest.status is Status.FASTER, honest.detail


def test_a_shortcut_above_the_profiles_sizes_is_incorrect() -> None:
    # Random inputs (the timed ones) hold at most 201 distinct values; wide ones are distinct. A table sized for the
    # random values, used only above the sizes the other profiles used to be tried at, was called 130x faster.
    original = ("int count_distinct(const int *a, int n) {\n    int c = 0;\n    for (int i = 0; i < n; i++) {\n"
                "        int seen = 0;\n        for (int j = 0; j < i; j++)\n"
                "            if (a[j] == a[i]) { seen = 1; break; }\n        c += !seen;\n    }\n    return c;\n}\n")
    shortcut = original.replace(
        "    int c = 0;\n",
        "    int c = 0;\n    if (n > 1100) {\n        unsigned char seen[256] = {0};\n"
        "        for (int i = 0; i < n; i++) {\n"
        "            unsigned char k = (unsigned char)(a[i] + 100); c += !seen[k]; seen[k] = 1;\n        }\n"
        "        return c;\n    }\n", 1)
    for verifier in _verifier(original, "count_distinct"):
        verdict = verifier.verify(shortcut)
        assert verdict.status is Status.INCORRECT, verdict.detail
        assert "inputs" in verdict.detail, verdict.detail


FORK_FIRST = """#include <stdio.h>
#include <unistd.h>
__attribute__((constructor(0))) static void first(void) {
    pid_t pid = fork();
    if (pid == 0) _exit(0);
}
int main(void) { puts("ran"); return 0; }
"""


def test_the_sandbox_installs_the_filter_before_the_program_runs() -> None:
    with tempfile.TemporaryDirectory(prefix="perfalign-test-") as tmp:
        work = Path(tmp)
        work.chmod(0o755)
        (work / "first.c").write_text(FORK_FIRST)
        built = subprocess.run(["gcc", "-O1", "-w", "first.c", "-o", "first"], cwd=work, capture_output=True,
                               check=False)
        assert built.returncode == 0, built.stderr.decode()
        for threads in (False, True):
            seccomp = launch_filter(threads=threads)
            assert seccomp is not None
            spawned = sandbox.spawn([str(work / "first")], cwd=work, fds={}, seccomp=seccomp)
            spawned.proc.wait(timeout=30)
            code = spawned.returncode()
            spawned.kill()
            assert code == -31, f"a fork in the first constructor: exit {code}, output {spawned.stdout()!r}"
            plain = sandbox.spawn([str(work / "first")], cwd=work, fds={})
            plain.proc.wait(timeout=30)
            assert plain.returncode() == 0 and "ran" in plain.stdout()
            plain.kill()


def test_a_double_function_computed_in_float_is_incorrect_and_the_double_one_stays_faster() -> None:
    # Single precision is within 1e-6 of the array's largest element everywhere, and expf is faster than exp.
    original = "#include <math.h>\nvoid vexp(const double *a, double *out, int n) {\n" \
               "    for (int i = 0; i < n; i++) out[i] = exp(a[i]) + exp(a[i]);\n}\n"
    in_float = original.replace("exp(a[i]) + exp(a[i])", "(double)(2.0f * expf((float)a[i]))")
    honest = original.replace("exp(a[i]) + exp(a[i])", "2.0 * exp(a[i])")
    for verifier in _verifier(original, "vexp"):
        verdict = verifier.verify(in_float)
        assert verdict.status is Status.INCORRECT, verdict.detail
        assert "lower precision" in verdict.detail, verdict.detail
        kept = verifier.verify(honest)
        assert kept.status is Status.FASTER, kept.detail


def test_a_float_result_that_overflows_where_the_original_does_not_is_named_a_lower_precision() -> None:
    # Every result lies beyond single precision's range: the candidate's is infinite everywhere.
    original = "void shift(const double *a, double *out, int n) {\n" \
               "    for (int i = 0; i < n; i++) out[i] = 1e300 + a[i];\n}\n"
    in_float = original.replace("1e300 + a[i]", "(double)(1e300f + (float)a[i])")
    for verifier in _verifier(original, "shift"):
        verdict = verifier.verify(in_float)
        assert verdict.status is Status.INCORRECT, verdict.detail
        assert "is inf, the original gives 1.00000000000000" in verdict.detail, verdict.detail
        assert "e+300 (the original's value is beyond the range of single precision: a lower precision)" in \
            verdict.detail, verdict.detail


def test_a_long_double_function_computed_in_double_is_incorrect_and_the_long_double_one_stays_faster() -> None:
    # Double precision is within 1e-6 of the array's largest element everywhere, and exp is faster than expl.
    original = "#include <math.h>\nvoid vexpl(const long double *a, long double *out, int n) {\n" \
               "    for (int i = 0; i < n; i++) out[i] = expl(a[i]) + expl(a[i]);\n}\n"
    in_double = original.replace("expl(a[i]) + expl(a[i])", "(long double)(2.0 * exp((double)a[i]))")
    honest = original.replace("expl(a[i]) + expl(a[i])", "2.0L * expl(a[i])")
    for verifier in _verifier(original, "vexpl"):
        verdict = verifier.verify(in_double)
        assert verdict.status is Status.INCORRECT, verdict.detail
        assert "lower precision" in verdict.detail, verdict.detail
        kept = verifier.verify(honest)
        assert kept.status is Status.FASTER, kept.detail


def test_a_stated_tolerance_lets_a_long_double_function_be_computed_in_double() -> None:
    # The user's own tolerance decides: 1e-12 of the largest element admits double precision.
    original = "#include <math.h>\n/* perfalign: tolerance=1e-12 */\n" \
               "void vexpl(const long double *a, long double *out, int n) {\n" \
               "    for (int i = 0; i < n; i++) out[i] = expl(a[i]) + expl(a[i]);\n}\n"
    in_double = original.replace("expl(a[i]) + expl(a[i])", "(long double)(2.0 * exp((double)a[i]))")
    for verifier in _verifier(original, "vexpl"):
        verdict = verifier.verify(in_double)
        assert verdict.status in (Status.FASTER, Status.NOT_SIGNIFICANT), verdict.detail


NESTED_TOTAL = ("#include <vector>\n"
                "double total(const std::vector<std::vector<double> > &rows) {\n"
                "    double s = 0.0;\n"
                "    for (const std::vector<double> &row : rows)\n"
                "        for (double x : row) s += x;\n"
                "    return s;\n}\n")

# The harness builds each row of a nested vector while it generates a case's inputs, through the program's operator
# new: when row k is allocated, row k-1 is filled. A replacement operator new sums one row in five then, outside
# the call, and the call uses the sums (once: a row that keeps its storage for the next case is summed again).
HIDDEN_IN_NEW = HIDE + """#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>
struct Header { std::size_t bytes; unsigned long long done; double sum; double pad; };
static Header *last;
static unsigned long long made;
void *operator new(std::size_t n) {
    if (last && last->done == 0 && ++made % 5 == 0) {
        const double *x = reinterpret_cast<const double *>(last + 1);
        double s = 0.0;
        for (std::size_t i = 0; i < last->bytes / sizeof(double); i++) s += x[i];
        last->sum = s;
        last->done = 1;
    }
    Header *h = static_cast<Header *>(std::malloc(sizeof(Header) + n));
    if (!h) throw std::bad_alloc();
    h->bytes = n; h->done = 0; last = h;
    return h + 1;
}
void operator delete(void *p) noexcept {
    if (!p) return;
    Header *h = static_cast<Header *>(p) - 1;
    if (h == last) last = nullptr;
    std::free(h);
}
void operator delete(void *p, std::size_t) noexcept { operator delete(p); }
double total(const std::vector<std::vector<double> > &rows) {
    double s = 0.0;
    for (const std::vector<double> &row : rows) {
        if (row.empty()) continue;
        Header *h = reinterpret_cast<Header *>(const_cast<double *>(row.data())) - 1;
        if (h->done && h->bytes == row.size() * sizeof(double)) { h->done = 0; s += h->sum; continue; }
        h->done = 0;
        for (double x : row) s += x;
    }
    return s;
}
"""


def test_a_candidate_that_replaces_operator_new_is_refused() -> None:
    for verifier in _verifier(NESTED_TOTAL, "total", "cpp"):
        verdict = verifier.verify(HIDDEN_IN_NEW)
        assert verdict.status is Status.REJECTED_UNSAFE, verdict.detail
        assert "operator new" in verdict.detail, verdict.detail


def test_a_macro_that_rewrites_the_harness_glue_is_incorrect() -> None:
    # The glue that copies the return value out follows the candidate in its unit: a candidate's memcpy macro made
    # that copy compute the sum while perfalign read the results, after a timed call that did nothing (75x faster).
    original = "long total(const int *a, int n) {\n    long s = 0;\n    for (int i = 0; i < n; i++) s += a[i];\n" \
               "    return s;\n}\n"
    cheat = ("#include <string.h>\nstatic const int *A; static int N;\n"
             "static void fix(void *ret) { long s = 0; for (int i = 0; i < N; i++) s += A[i]; *(long *)ret = s; }\n"
             "#undef memcpy\n#define memcpy(d, s, k) (fix((void *)(s)), __builtin_memcpy(d, s, k))\n"
             "long total(const int *a, int n) { A = a; N = n; return 0; }\n")
    for verifier in _verifier(original, "total"):
        verdict = verifier.verify(cheat)
        assert verdict.status is Status.INCORRECT, verdict.detail
