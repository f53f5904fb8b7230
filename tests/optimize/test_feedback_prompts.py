"""The feedback turns: what the model is told about a failed or a slow candidate, in both modes and languages."""
from __future__ import annotations

import pytest

from perfalign.server import cparse
from perfalign.server.optimize import FEEDBACK_PROMPT_VERSION, PROMPT_VERSION, build_feedback, build_messages
from perfalign.server.settings import Settings
from perfalign.server.verdict import Status, Verdict

C_SOURCE = """double total(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i];
    return s;
}
"""
CPP_SOURCE = """#include <vector>
void scale(std::vector<double> &v, double a) {
    for (std::size_t i = 0; i < v.size(); i++)
        v[i] *= a;
}
"""


def info(language: str):  # type: ignore[no-untyped-def]
    source = C_SOURCE if language == "c" else CPP_SOURCE
    return cparse.find_function(source, language, name="total" if language == "c" else "scale")


@pytest.mark.parametrize("language", ["c", "cpp"])
@pytest.mark.parametrize("mode", ["serial", "openmp"])
def test_a_repair_turn_continues_the_conversation_with_the_first_error(language: str, mode: str) -> None:
    fn, settings = info(language), Settings()
    first = build_messages(fn, mode, settings)
    error = "line 3: error: user defined reduction not found for 'v'"
    turn = build_feedback(first, fn, mode, settings, "void f() { broken }",
                          Verdict(Status.COMPILE_ERROR, detail=error, mode=mode))
    assert turn is not None and turn.kind == "repair"
    assert turn.messages[:2] == first
    fence = "cpp" if language == "cpp" else "c"
    assert turn.messages[2] == {"role": "assistant", "content": f"```{fence}\nvoid f() {{ broken }}\n```"}
    assert turn.messages[3] == {"role": "user", "content": turn.text}
    assert error in turn.text and "does not compile" in turn.text
    assert ("C++" if language == "cpp" else "C)") in turn.text
    assert "only scalar variables" in turn.text  # what the message means
    assert f"`{fn.name}`" in turn.text and f"```{fence} code block" in turn.text
    assert ("in parallel with OpenMP" in turn.text) == (mode == "openmp")
    assert ("-fopenmp" in turn.text) == (mode == "openmp")


SAXPY = """void saxpy(float a, const float *x, float *y, int n) {
#pragma omp parallel for reduction(+ : *y)
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}"""
CLAMP = """int clamp_max(const int *x, int n) {
    int best = x[0];
    for (int i = 1; i < n; i++)
        best = max(best, x[i]);
    return best;
}"""


@pytest.mark.parametrize(("error", "code", "told"), [
    # a malformed clause the message does not name: the line it points at does
    ("line 2: error: expected identifier before ‘*’ token", SAXPY, "only scalar variables"),
    ("line 4: error: ‘s_’ undeclared (first use in this function)", C_SOURCE,
     "`s_` is not declared where it is used"),
    ("line 4: error: ‘max’ undeclared (first use in this function)", CLAMP, "C has no `max` function"),
    ("link failed: undefined reference to `min'", CLAMP, "C has no `min` function"),
    ("line 7: error: assignment of read-only variable ‘k’", C_SOURCE, "declared `const`"),
    ("line 5: error: not enough perfectly nested loops before ‘y’", SAXPY, "collapse(n) needs n loops"),
    ("context: error: expected identifier or ‘(’ before numeric constant", C_SOURCE, "a macro the file defines"),
    ("line 6: error: array subscript is not an integer", C_SOURCE, "An index must be an integer"),
])
def test_a_compile_error_comes_with_what_it_usually_means(error: str, code: str, told: str) -> None:
    fn, settings = info("c"), Settings()
    turn = build_feedback(build_messages(fn, "openmp", settings), fn, "openmp", settings, code,
                          Verdict(Status.COMPILE_ERROR, detail=error, mode="openmp"))
    assert turn is not None and error in turn.text and told in turn.text


HOISTED = """void normalize_rows(const double *a, double *out, int n) {
    double s = 0.0;
    for (int k = 0; k < n; k++)
        s += a[i * n + k] * a[i * n + k];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            out[i * n + j] = s > 0.0 ? a[i * n + j] / sqrt(s) : 0.0;
}"""


@pytest.mark.parametrize("error", ["line 4: error: ‘i’ undeclared (first use in this function)",
                                   "line 4: error: ‘i’ was not declared in this scope"])
def test_a_loop_variable_used_outside_its_loop_is_told_with_both_lines(error: str) -> None:
    fn, settings = info("c"), Settings()
    turn = build_feedback(build_messages(fn, "serial", settings), fn, "serial", settings, HOISTED,
                          Verdict(Status.COMPILE_ERROR, detail=error))
    assert turn is not None
    assert ("`i` exists only inside the loop that declares it (line 5: `for (int i = 0; i < n; i++)`), but line 4 "
            "(`s += a[i * n + k] * a[i * n + k];`) uses it before that loop") in turn.text
    assert "not declared where it is used" not in turn.text  # the general hint gives way to the precise one


def test_an_undeclared_name_no_loop_declares_gets_the_general_hint() -> None:
    fn, settings = info("c"), Settings()
    turn = build_feedback(build_messages(fn, "serial", settings), fn, "serial", settings, HOISTED,
                          Verdict(Status.COMPILE_ERROR, detail="line 4: error: ‘a_len’ undeclared"))
    assert turn is not None and "`a_len` is not declared where it is used" in turn.text


def test_an_error_with_no_known_meaning_is_sent_without_a_hint() -> None:
    fn, settings = info("c"), Settings()
    error = "line 2: error: expected ‘;’ before ‘}’ token"
    turn = build_feedback(build_messages(fn, "serial", settings), fn, "serial", settings, C_SOURCE,
                          Verdict(Status.COMPILE_ERROR, detail=error))
    assert turn is not None
    assert turn.text.split("\n\n")[-1].startswith("Fix the rewrite") and len(turn.text.split("\n\n")) == 2


def test_a_mismatch_and_a_crash_are_told_as_the_checker_found_them() -> None:
    fn, settings = info("c"), Settings()
    first = build_messages(fn, "openmp", settings)
    mismatch = "'return value' is 3.5, the original gives 4.0 (n=17, seed 2) at 3 threads"
    wrong = build_feedback(first, fn, "openmp", settings, "double total() {}", Verdict(Status.INCORRECT, detail=mismatch))
    assert wrong is not None and "computes something different" in wrong.text
    assert "'return value' is 3.5, the original gives 4.0 (n=17) at 3 threads" in wrong.text  # the seed tells nothing
    crash = "the candidate accessed memory past the end of 'x' (17 elements)"
    crashed = build_feedback(first, fn, "serial", settings, "double total() {}", Verdict(Status.CRASH, detail=crash))
    assert crashed is not None and "crashed" in crashed.text and "'x'" in crashed.text


def test_a_mismatch_on_a_small_case_shows_the_call_written_out() -> None:
    fn, settings = info("c"), Settings()
    first = build_messages(fn, "serial", settings)
    example = "call: total(x, n) with x = {0.5, -inf}, n = 2\noriginal: returns -inf\nrewrite:  returns nan"
    verdict = Verdict(Status.INCORRECT, detail="the candidate returns nan, the original -inf (n=2, special inputs "
                                               "(-Inf/-1), seed 7)", example=example)
    turn = build_feedback(first, fn, "serial", settings, "double total() {}", verdict)
    assert turn is not None
    assert f"```\n{example}\n```" in turn.text
    assert turn.text.index(example) < turn.text.index("Fix the rewrite")
    # a crash or a compile error never has one, and a mismatch without one is told as before
    plain = build_feedback(first, fn, "serial", settings, "double total() {}",
                           Verdict(Status.INCORRECT, detail="the candidate returns 1, the original 2 (n=40000, seed 3)"))
    assert plain is not None and "call:" not in plain.text


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_an_improvement_turn_gives_the_measured_times(language: str) -> None:
    fn, settings = info(language), Settings()
    slow = Verdict(Status.SLOWER, speedup=0.5, baseline_ms=4.0, candidate_ms=8.0, threads=2, mode="openmp")
    turn = build_feedback(build_messages(fn, "openmp", settings), fn, "openmp", settings, "code", slow)
    assert turn is not None and turn.kind == "improve"
    assert "with 2 threads it takes 8 ms" in turn.text and "1 thread takes 4 ms" in turn.text
    assert "2.00× slower" in turn.text
    same = Verdict(Status.NOT_SIGNIFICANT, speedup=1.02, baseline_ms=0.004, candidate_ms=0.0039)
    turn = build_feedback(build_messages(fn, "serial", settings), fn, "serial", settings, "code", same)
    assert turn is not None and "4 µs" in turn.text and "1.02× as fast, within the noise" in turn.text
    assert "without OpenMP" in turn.text


def test_nothing_is_asked_about_a_faster_candidate_a_refusal_or_missing_code() -> None:
    fn, settings = info("c"), Settings()
    first = build_messages(fn, "serial", settings)
    for verdict in (Verdict(Status.FASTER, speedup=2.0), Verdict(Status.UNSUPPORTED, detail="perfalign's bug"),
                    Verdict(Status.REJECTED_UNSAFE, detail="calls system()"), Verdict(Status.TIMEOUT)):
        assert build_feedback(first, fn, "serial", settings, "code", verdict) is None
    assert build_feedback(first, fn, "serial", settings, "", Verdict(Status.COMPILE_ERROR, detail="x")) is None
    assert FEEDBACK_PROMPT_VERSION != PROMPT_VERSION
