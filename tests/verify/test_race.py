"""Races in OpenMP code are found with ThreadSanitizer and Archer, and named by their line."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from perfalign.server.settings import Settings
from perfalign.server.verify.judging import _race as race

pytestmark = pytest.mark.skipif(not race.archer_available(), reason="clang with libomp and Archer not installed")

DRIVER = """
#include <stdio.h>
#include <stdlib.h>

{function}

int main(int argc, char **argv)
{{
    int n = argc > 1 ? atoi(argv[1]) : 64;
    double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n);
    for (int i = 0; i < n * n; i++) a[i] = i % 7;
    double r = kernel(a, b, n);
    printf("%f %f\\n", r, b[n + 1]);
    free(a);
    free(b);
    return 0;
}}
"""

RACY = {
    "missing reduction": (
        """double kernel(const double *a, double *b, int n)
{
    double s = 0;
    #pragma omp parallel for
    for (int i = 0; i < n * n; i++)
        s += a[i];
    return s;
}""",
        "s += a[i];",
    ),
    "shared temporary": (
        """double kernel(const double *a, double *b, int n)
{
    double t;
    #pragma omp parallel for
    for (int i = 0; i < n * n; i++) {
        t = a[i] * 2.0;
        b[i] = t + 1.0;
    }
    return b[0];
}""",
        "t = a[i] * 2.0;",
    ),
    "missing private": (
        """double kernel(const double *a, double *b, int n)
{
    int j;
    #pragma omp parallel for
    for (int i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            b[i * n + j] = a[j * n + i];
    return b[0];
}""",
        "for (j = 0; j < n; j++)",
    ),
}

CORRECT = {
    "reduction": """double kernel(const double *a, double *b, int n)
{
    double s = 0;
    #pragma omp parallel for reduction(+:s)
    for (int i = 0; i < n * n; i++)
        s += a[i];
    return s;
}""",
    "private": """double kernel(const double *a, double *b, int n)
{
    int j;
    double t;
    #pragma omp parallel for private(j, t)
    for (int i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            t = a[j * n + i];
            b[i * n + j] = t;
        }
    return b[0];
}""",
    "collapse": """double kernel(const double *a, double *b, int n)
{
    #pragma omp parallel for collapse(2)
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            b[i * n + j] = 2.0 * a[j * n + i];
    return b[0];
}""",
}


def check(tmp_path: Path, function: str, settings: Settings | None = None) -> race.RaceCheck:
    source = tmp_path / "driver.c"
    source.write_text(DRIVER.format(function=function))
    work = tmp_path / "work"
    work.mkdir()
    return race.find_race(
        [source], language="c", include_dirs=[], workdir=work, threads=4, run_args=["48"],
        settings=settings or Settings(),
    )


@pytest.mark.parametrize("name", sorted(RACY))
def test_racy_candidates_are_reported_with_their_line(tmp_path: Path, name: str) -> None:
    function, racy_line = RACY[name]
    found = check(tmp_path, function).race
    assert found is not None, f"no race found for the {name}"
    assert found.startswith("data race at driver.c:")
    assert racy_line in found
    line_no = int(found.split(":")[1])
    assert (tmp_path / "driver.c").read_text().splitlines()[line_no - 1].strip() == racy_line


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_openmp_passes(tmp_path: Path, name: str) -> None:
    assert check(tmp_path, CORRECT[name]).clean


# Calls of a kernel that races on a temporary every thread writes, as the verifier's race check makes them.
REPEATED_CALLS = """
#include <stdio.h>
#include <stdlib.h>

static void scale(const double *a, double *out, int n)
{
    double f;
    #pragma omp parallel for
    for (int i = 0; i < n; i++) {
        f = 2.0;
        out[i] = f * a[i];
    }
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    double *a = calloc(n, sizeof *a), *out = calloc(n, sizeof *out);
    for (int call = 0; call < 3; call++)
        scale(a, out, n);
    printf("%f\\n", out[n - 1]);
    return 0;
}
"""


@pytest.mark.alone  # it loads every core
def test_a_race_is_found_every_time_on_a_loaded_machine(tmp_path: Path) -> None:
    # A thread descheduled for long must not let the race's earlier access slip out of ThreadSanitizer's history.
    source = tmp_path / "calls.c"
    source.write_text(REPEATED_CALLS)
    busy = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(os.cpu_count() or 2)]
    missed = 0
    try:
        for attempt in range(16):
            work = tmp_path / f"work{attempt}"
            work.mkdir()
            found = race.find_race([source], language="c", include_dirs=[], workdir=work, threads=4,
                                   run_args=["1000000"], settings=Settings())
            missed += found.race is None or "f = 2.0;" not in found.race
    finally:
        for process in busy:
            process.kill()
            process.wait()
    assert missed == 0, f"the race went unreported in {missed} of 16 checks"


def test_a_check_that_runs_out_of_time_is_not_a_pass(tmp_path: Path) -> None:
    # A loaded machine starves the instrumented run: that says nothing about races, so it must not read as "none".
    slow = """double kernel(const double *a, double *b, int n)
{
    volatile double s = 0;
    #pragma omp parallel for reduction(+:s)
    for (long i = 0; i < 4000000000L; i++)
        s += a[i % n];
    return s;
}"""
    result = check(tmp_path, slow, Settings(run_timeout_s=0.5))
    assert not result.clean and result.race is None
    assert result.timed_out and "did not finish within 2 s" in (result.failed or "")


def test_a_program_clang_cannot_build_is_not_a_pass(tmp_path: Path) -> None:
    # GCC's nested functions build with gcc, never with clang: the race check cannot run, and says why.
    nested = """double kernel(const double *a, double *b, int n)
{
    double twice(double x) { return 2.0 * x; }
    double s = 0;
    #pragma omp parallel for
    for (int i = 0; i < n * n; i++)
        s += twice(a[i]);
    return s;
}"""
    result = check(tmp_path, nested)
    assert not result.clean and not result.timed_out
    assert (result.failed or "").startswith("clang could not build it with ThreadSanitizer (")


def test_race_found_without_bubblewrap() -> None:
    # Without bubblewrap a root user's commands run as a throw-away uid: the work dir is a /tmp folder.
    work = Path(tempfile.mkdtemp(prefix="perfalign-race-"))
    try:
        source = work / "driver.c"
        source.write_text(DRIVER.format(function=RACY["missing reduction"][0]))
        found = race.find_race([source], language="c", include_dirs=[], workdir=work, threads=2, run_args=["32"],
                               settings=Settings(sandbox=False)).race
        assert found is not None and "s += a[i];" in found
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_cpp_sources_use_clangxx(tmp_path: Path) -> None:
    source = tmp_path / "driver.cpp"
    source.write_text(
        "#include <vector>\n#include <cstdio>\n"
        "double kernel(const std::vector<double>& a) {\n"
        "    double s = 0;\n"
        "    #pragma omp parallel for\n"
        "    for (std::size_t i = 0; i < a.size(); i++)\n"
        "        s += a[i];\n"
        "    return s;\n}\n"
        "int main() { std::vector<double> a(4096, 1.0); std::printf(\"%f\\n\", kernel(a)); return 0; }\n"
    )
    work = tmp_path / "work"
    work.mkdir()
    found = race.find_race([source], language="cpp", include_dirs=[], workdir=work, threads=4, run_args=[],
                           settings=Settings()).race
    assert found is not None and "driver.cpp:7" in found


def test_describe_race_without_a_report_is_none() -> None:
    assert race.describe_race("all fine\n", []) is None


def test_line_directives_map_back_to_the_candidate(tmp_path: Path) -> None:
    original = tmp_path / "original.c"
    original.write_text('#line 1 "function"\nvoid f(void)\n{\n}\n#line 1 "glue"\n')
    candidate = tmp_path / "candidate.c"
    candidate.write_text('/* generated */\n#line 1 "function"\nvoid f(void)\n{\n    t = 1.0;\n}\n#line 1 "glue"\nx\n')
    report = "WARNING: ThreadSanitizer: data race (pid=2)\nSUMMARY: ThreadSanitizer: data race /w/job1/function:3:7 in f\n"
    assert race.describe_race(report, [original, candidate]) == "data race at function:3: t = 1.0;"


# ---------------------------------------------------------------------------- through the verifier

SCALE = """void scale(const double *a, double *out, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = 2.0 * a[i];
}
"""

# Every thread writes the same value: the results are right, only the race check can tell.
SHARED_FACTOR = """void scale(const double *a, double *out, int n)
{
    double f;
    #pragma omp parallel for
    for (int i = 0; i < n; i++) {
        f = 2.0;
        out[i] = f * a[i];
    }
}"""


@pytest.fixture(scope="module")
def scale_verifier():  # type: ignore[no-untyped-def]
    from perfalign.server.verify._verifier import FunctionVerifier

    with FunctionVerifier(SCALE, "c", "scale", mode="openmp", settings=Settings(threads=2)) as verifier:
        assert verifier.prepare() is None
        yield verifier


def test_verifier_reports_a_race_that_results_do_not_show(scale_verifier) -> None:  # type: ignore[no-untyped-def]
    from perfalign.server.verdict import Status

    verdict = scale_verifier.verify(SHARED_FACTOR)
    assert verdict.status is Status.INCORRECT
    assert "data race" in verdict.detail and "f = 2.0;" in verdict.detail


def test_the_race_checks_small_calls_stay_within_the_detectors_history(scale_verifier, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # scale's problem size is millions of elements; calls that large let ThreadSanitizer forget the earlier
    # access of a race on a loaded machine (docs/safety.md), so the repeated calls are kept small.
    import struct

    from perfalign.server.verdict import Status
    from perfalign.server.verify import _verifier
    from perfalign.server.verify.sandbox._worker import HEADER

    recorded: list[bytes] = []
    real = _verifier.race_in_candidate

    def recording(*args, **kwargs):  # type: ignore[no-untyped-def]
        recorded.append(kwargs["commands"])
        return real(*args, **kwargs)

    monkeypatch.setattr(_verifier, "race_in_candidate", recording)
    verdict = scale_verifier.verify(SHARED_FACTOR)
    assert verdict.status is Status.INCORRECT and "data race" in verdict.detail
    commands, at, ops = recorded[0], 0, []
    while at < len(commands):
        _, op, size = HEADER.unpack_from(commands, at)
        ops.append((op, commands[at + HEADER.size: at + HEADER.size + size]))
        at += HEADER.size + size
    setups = [k for k, (op, _) in enumerate(ops) if op == 3]
    assert scale_verifier._prepared.problem_size > 4 * _verifier.RACE_ELEMENTS
    counts = struct.unpack_from("<3Q", ops[setups[0]][1], 32 + 8 * 4)  # after the header fields and 4 lengths
    assert 0 < sum(counts) <= _verifier.RACE_ELEMENTS
    assert [op for op, _ in ops[setups[0] + 1: setups[1]]] == [4] * _verifier.RACE_SMALL_CALLS


def test_verifier_passes_the_private_version(scale_verifier) -> None:  # type: ignore[no-untyped-def]
    from perfalign.server.verdict import TIMED

    verdict = scale_verifier.verify(SHARED_FACTOR.replace("parallel for", "parallel for private(f)"))
    assert verdict.status in TIMED, verdict.detail


# GCC builds nested functions, clang does not: the candidate compiles and computes the right results, yet its
# race check cannot be built, so it is never shown as verified.
NESTED = """void scale(const double *a, double *out, int n)
{
    double twice(double x) { return 2.0 * x; }
    #pragma omp parallel for
    for (int i = 0; i < n; i++)
        out[i] = twice(a[i]);
}"""


def test_verifier_refuses_a_candidate_it_could_not_check_for_races(scale_verifier) -> None:  # type: ignore[no-untyped-def]
    from perfalign.server.verdict import Status

    verdict = scale_verifier.verify(NESTED)
    assert verdict.status is Status.UNSUPPORTED, verdict.detail
    assert "could not be checked for data races" in verdict.detail
    assert "clang could not build it" in verdict.detail
