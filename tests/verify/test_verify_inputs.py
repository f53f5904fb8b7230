"""Bad input, C++ functions, helpers and stated sizes, against real gcc/g++."""
from __future__ import annotations

import tempfile
import threading
from pathlib import Path
from typing import Iterator

import pytest

from perfalign.server.settings import Settings
from perfalign.server.verdict import TIMED, Status
from perfalign.server.verify.sandbox._sandbox import Cancelled
from perfalign.server.verify._verifier import FunctionVerifier, verify_source

CASES = Path(__file__).resolve().parents[1] / "cases"
QUICK = Settings(min_time_ms=1.0)  # for tests that look at correctness, not at speedups


def read(folder: str, name: str) -> str:
    return (CASES / folder / name).read_text()


def verifier_for(folder: str, file: str, function: str, language: str, **settings: object) -> Iterator[FunctionVerifier]:
    path = CASES / folder / file
    with FunctionVerifier(path.read_text(), language, function, settings=Settings(**settings), source_path=path) as v:  # type: ignore[arg-type]
        failure = v.prepare()
        assert failure is None, failure.detail
        yield v


@pytest.fixture(scope="module")
def prefix() -> Iterator[FunctionVerifier]:
    # The default run limits: a shared CI machine can be slow for seconds at a time, and the
    # original's self-check must not be what a test of bad candidates trips over.
    yield from verifier_for("prefix", "original.c", "prefix_sums", "c", min_time_ms=5.0)


@pytest.fixture(scope="module")
def centered() -> Iterator[FunctionVerifier]:
    yield from verifier_for("cpp", "original.cpp", "stats::centered_squares", "cpp")


@pytest.mark.parametrize(
    "name, status, words",
    [
        ("compile_error.c", Status.COMPILE_ERROR, "does not parse"),
        ("type_error.c", Status.COMPILE_ERROR, "line 3: error"),
        ("signature_changed.c", Status.COMPILE_ERROR, "changed the signature"),
        ("wrong_name.c", Status.COMPILE_ERROR, "does not define prefix_sums"),
        ("crash_null.c", Status.CRASH, "null pointer"),
        ("loops_forever.c", Status.TIMEOUT, "did not finish within 10 s"),
        ("exhausts_memory.c", Status.CRASH, "allocation may have failed"),
        ("exits_early.c", Status.CRASH, "ended the program"),
    ],
)
def test_each_bad_candidate_gets_its_status_and_one_line(prefix: FunctionVerifier, name: str, status: Status, words: str) -> None:
    verdict = prefix.verify(read("bad", name))
    assert verdict.status is status, verdict.detail
    assert words in verdict.detail
    assert "\n" not in verdict.detail and len(verdict.detail) < 500


def test_a_file_that_does_not_parse_is_unsupported() -> None:
    source = read("bad", "syntax_error.c")
    verdict = verify_source(source, "c", "broken", source, settings=QUICK)
    assert verdict.status is Status.UNSUPPORTED
    assert "syntax error at line 2" in verdict.detail


def test_a_missing_function_names_the_ones_there() -> None:
    verdict = verify_source(read("prefix", "original.c"), "c", "nope", "", settings=QUICK)
    assert verdict.status is Status.UNSUPPORTED
    assert "no function named 'nope'" in verdict.detail and "prefix_sums" in verdict.detail


def test_pointers_to_pointers_beyond_rows_are_unsupported_with_the_fix() -> None:
    source = read("bad", "pointer_pairs.c")
    verdict = verify_source(source, "c", "corner", source, settings=QUICK)
    assert verdict.status is Status.UNSUPPORTED
    assert "flat array" in verdict.detail
    rows = verify_source(source, "c", "first", source, settings=QUICK)  # T **: rows with their sizes
    assert rows.status in TIMED, rows.detail


def test_sizes_that_cannot_be_inferred_say_how_to_state_them() -> None:
    source = read("bad", "pointer_pairs.c")
    verdict = verify_source(source, "c", "magnitudes", source, settings=QUICK)
    assert verdict.status is Status.UNSUPPORTED
    assert "/* perfalign: size(z)=" in verdict.detail
    assert '[functions."magnitudes"]' in verdict.detail


def test_a_stated_size_makes_the_function_verifiable() -> None:
    source = read("bad", "pointer_pairs.c")
    verdict = verify_source(source, "c", "magnitudes_annotated", source.replace("magnitudes_annotated(", "magnitudes_annotated(", 1), settings=QUICK)
    assert verdict.status in TIMED, verdict.detail


def test_perfalign_toml_states_sizes(tmp_path: Path) -> None:
    source = read("bad", "pointer_pairs.c")
    (tmp_path / "pairs.c").write_text(source)
    (tmp_path / "perfalign.toml").write_text('[functions.magnitudes]\nsize = { z = "2*n*n", out = "n*n" }\n')
    candidate = """
void magnitudes(const double *z, double *out, int n) {
    for (int i = 0; i < n * n; i++)
        out[i] = z[2 * i] * z[2 * i] + z[2 * i + 1] * z[2 * i + 1];
}
"""
    verdict = verify_source(source, "c", "magnitudes", candidate, settings=QUICK, source_path=tmp_path / "pairs.c")
    assert verdict.status in TIMED, verdict.detail


def test_check_sizes_too_big_for_memory_fall_back_to_the_problem_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # When the time estimate calls every larger size cheap, an n*n function asks for check sizes
    # (65537**2 doubles) that no run can allocate: the verifier checks up to the problem size instead.
    from perfalign.server.verify import _prepare

    monkeypatch.setattr(_prepare, "_cost_model", lambda *args, **kwargs: (lambda size: 0.0))
    source = read("bad", "pointer_pairs.c")
    (tmp_path / "pairs.c").write_text(source)
    (tmp_path / "perfalign.toml").write_text('[functions.magnitudes]\nsize = { z = "2*n*n", out = "n*n" }\n')
    wrong = """
void magnitudes(const double *z, double *out, int n) {
    for (int i = 0; i < n * n; i++)
        out[i] = z[2 * i] * z[2 * i];
}
"""
    verdict = verify_source(source, "c", "magnitudes", wrong, settings=QUICK, source_path=tmp_path / "pairs.c")
    assert verdict.status is Status.INCORRECT, verdict.detail


def test_a_stated_size_that_is_too_small_is_reported() -> None:
    source = read("bad", "pointer_pairs.c").replace("size(z)=2*n*n", "size(z)=n*n")
    verdict = verify_source(source, "c", "magnitudes_annotated", source, settings=QUICK)
    assert verdict.status is Status.UNSUPPORTED
    assert "beyond the stated size(z)=n*n" in verdict.detail


def test_sizes_read_through_a_moving_pointer_are_found_by_probing() -> None:
    source = read("sized", "original.c")
    verdict = verify_source(source, "c", "row_sums", source, settings=QUICK)
    assert verdict.status in TIMED, verdict.detail


@pytest.mark.parametrize("name", ["good_linear.cpp", "good_in_namespace.cpp"])
def test_cpp_vector_output_in_a_namespace_is_faster(centered: FunctionVerifier, name: str) -> None:
    verdict = centered.verify(read("cpp", name))
    assert verdict.status is Status.FASTER, verdict.detail
    assert verdict.ci95[0] <= verdict.speedup <= verdict.ci95[1]


@pytest.mark.parametrize("name, words", [("wrong_sample_mean.cpp", "'out'["), ("wrong_size.cpp", "elements after the candidate")])
def test_cpp_wrong_vector_outputs_are_incorrect(centered: FunctionVerifier, name: str, words: str) -> None:
    verdict = centered.verify(read("cpp", name))
    assert verdict.status is Status.INCORRECT, verdict.detail
    assert words in verdict.detail


def test_cpp_whole_file_as_candidate_is_accepted(centered: FunctionVerifier) -> None:
    assert centered.verify(read("cpp", "original.cpp")).status in TIMED


def test_cpp_template_is_instantiated_for_double() -> None:
    path = CASES / "cpp" / "original.cpp"
    with FunctionVerifier(path.read_text(), "cpp", "max_abs", settings=QUICK, source_path=path) as v:
        assert v.prepare() is None
        assert v.verify(read("cpp", "max_abs_wrong.cpp")).status is Status.INCORRECT
        assert v.verify(read("cpp", "max_abs_good.cpp")).status in TIMED


def test_c_function_calling_a_helper_in_the_same_file() -> None:
    path = CASES / "helper" / "original.c"
    with FunctionVerifier(path.read_text(), "c", "eval_all", settings=QUICK, source_path=path) as v:
        assert v.prepare() is None
        assert v.verify(read("helper", "good_horner.c")).status is Status.FASTER
        assert v.verify(read("helper", "good_calls_helper.c")).status in TIMED
        assert v.verify(read("helper", "wrong_drops_term.c")).status is Status.INCORRECT
        assert v.verify(read("helper", "original.c")).status in TIMED  # the whole file, main() included


def test_cancel_stops_the_work_and_removes_temp_files(monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    private = Path(tempfile.mkdtemp(prefix="perfalign-test-"))
    private.chmod(0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    try:
        cancel = threading.Event()
        path = CASES / "prefix" / "original.c"
        verifier = FunctionVerifier(path.read_text(), "c", "prefix_sums", settings=QUICK, cancel=cancel,
                                    progress=lambda message: cancel.set() if "problem size" in message else None)
        with pytest.raises(Cancelled):
            verifier.prepare()
        verifier.close()
        assert list(private.iterdir()) == []
    finally:
        shutil.rmtree(private, ignore_errors=True)


def test_compile_commands_json_supplies_the_flags(tmp_path: Path) -> None:
    import json

    src = tmp_path / "k.c"
    src.write_text("double scaled(const double *a, int n) {\n    double s = 0;\n"
                   "    for (int i = 0; i < n; i++)\n        s += a[i] * SCALE;\n    return s;\n}\n")
    (tmp_path / "compile_commands.json").write_text(
        json.dumps([{"directory": str(tmp_path), "command": f"cc -DSCALE=3.0 -O2 -c {src}", "file": str(src)}])
    )
    text = src.read_text()
    with_db = verify_source(text, "c", "scaled", text, settings=QUICK, source_path=src)
    assert with_db.status in TIMED, with_db.detail
    without = verify_source(text, "c", "scaled", text, settings=QUICK)
    assert without.status is Status.UNSUPPORTED and "SCALE" in without.detail


def test_strings_integers_and_typedefs() -> None:
    path = CASES / "kinds" / "original.c"
    text = path.read_text()
    with FunctionVerifier(text, "c", "count_vowels", settings=QUICK, source_path=path) as v:
        assert v.prepare() is None
        assert v.verify(read("kinds", "count_vowels_wrong.c")).status is Status.INCORRECT
        assert v.verify(read("kinds", "count_vowels_good.c")).status in TIMED
    histogram_off = text.replace("bins[v]++;", "bins[v] += (i % 1000 != 999);")
    assert verify_source(text, "c", "histogram", histogram_off, settings=QUICK).status is Status.INCORRECT
    saxpy_float = "void saxpy(real_t *y, const real_t *x, real_t alpha, unsigned n) {\n" \
                  "    for (unsigned i = 0; i < n; i++) y[i] += alpha * x[i];\n}\n"
    assert verify_source(text, "c", "saxpy", saxpy_float, settings=QUICK).status in TIMED


def test_cpp_returned_vector_is_compared_with_lengths_independent_of_its_size() -> None:
    path = CASES / "cpp" / "returns_vector.cpp"
    with FunctionVerifier(path.read_text(), "cpp", "moving_average", settings=QUICK, source_path=path) as v:
        assert v.prepare() is None
        wrong = v.verify(read("cpp", "returns_vector_wrong.cpp"))
        assert wrong.status is Status.INCORRECT and "returned vector" in wrong.detail
        assert v.verify(read("cpp", "returns_vector_good.cpp")).status in TIMED


def test_a_nondeterministic_original_is_unsupported_with_the_reason() -> None:
    source = """#include <stdlib.h>
void jitter(double *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = out[i] + rand() / (double)RAND_MAX;
}
"""
    verdict = verify_source(source, "c", "jitter", source, settings=QUICK)
    assert verdict.status is Status.UNSUPPORTED
    assert "same result twice" in verdict.detail


def test_a_helper_defined_in_another_file_is_named() -> None:
    source = "double helper(double x);\nvoid f(double *a, int n) { for (int i = 0; i < n; i++) a[i] = helper(a[i]); }\n"
    verdict = verify_source(source, "c", "f", source, settings=QUICK)
    assert verdict.status is Status.UNSUPPORTED
    assert "uses 'helper', which this file does not define" in verdict.detail


def test_struct_definitions_in_the_context_keep_their_semicolon() -> None:
    source = "struct params { double a, b; };\nstatic const struct params P = {2.0, 1.0};\n" \
             "void affine(const double *x, double *y, int n) { for (int i = 0; i < n; i++) y[i] = P.a * x[i] + P.b; }\n"
    verdict = verify_source(source, "c", "affine", source, settings=QUICK)
    assert verdict.status in TIMED, verdict.detail


def test_a_static_member_function_is_called_through_its_class() -> None:
    path = CASES / "cpp" / "static_member.cpp"
    with FunctionVerifier(path.read_text(), "cpp", "Kernels::sum_sq", settings=QUICK, source_path=path) as v:
        assert v.prepare() is None
        assert v.verify(read("cpp", "static_member_good.cpp")).status in TIMED
        assert v.verify(read("cpp", "static_member.cpp")).status in TIMED  # the whole file
        wrong = read("cpp", "static_member_good.cpp").replace("s0 + s1", "s0")
        assert v.verify(wrong).status is Status.INCORRECT
    other = verify_source(path.read_text(), "cpp", "k::Kernels::scaled", path.read_text(), settings=QUICK)
    assert other.status is Status.UNSUPPORTED and "class method" in other.detail


def _stall_first_self_checks(monkeypatch: pytest.MonkeyPatch, stalls: int) -> None:
    """Make the first ``stalls`` self-checks of the original run out of time, as on a machine that is
    briefly overloaded: those runs get a time limit per call too short for any call to finish."""
    from perfalign.server.verify.sandbox._runner import Runner

    real = Runner.call_timeout
    left = [stalls]

    def call_timeout(self: Runner, baseline_ms: float) -> float:
        if left[0] > 0:
            left[0] -= 1
            return 1e-6
        return real(self, baseline_ms)

    monkeypatch.setattr(Runner, "call_timeout", call_timeout)


def test_a_self_check_that_runs_out_of_time_once_is_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    _stall_first_self_checks(monkeypatch, 1)
    messages: list[str] = []
    path = CASES / "prefix" / "original.c"
    with FunctionVerifier(path.read_text(), "c", "prefix_sums", settings=QUICK, source_path=path,
                          progress=messages.append) as v:
        assert v.prepare() is None
        assert v.verify(read("bad", "crash_null.c")).status is Status.CRASH
    assert any("again" in m for m in messages), messages


def test_a_self_check_that_runs_out_of_time_twice_is_unsupported_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    _stall_first_self_checks(monkeypatch, 2)
    path = CASES / "prefix" / "original.c"
    with FunctionVerifier(path.read_text(), "c", "prefix_sums", settings=QUICK, source_path=path) as v:
        failure = v.prepare()
    assert failure is not None and failure.status is Status.UNSUPPORTED
    assert "checking the original against itself took more than" in failure.detail


def test_a_returned_infinity_equals_only_itself() -> None:
    import numpy as np

    from perfalign.server.verify.judging._compare import returned_difference

    inf, big = np.array([np.inf]), np.array([1e304])
    assert returned_difference(inf, big, None) and returned_difference(big, inf, None)
    assert returned_difference(inf, -inf, None)
    assert not returned_difference(inf, inf.copy(), None)
    assert not returned_difference(np.array([np.nan]), inf, None, special=True)
