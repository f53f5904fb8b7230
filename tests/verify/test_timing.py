"""Timing against real gcc: a faster verdict holds in a second session, at the user's flags; retries; OpenMP traps."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest

from perfalign.server.settings import Settings
from perfalign.server.verdict import TIMED, Status
from perfalign.server.verify._verifier import FunctionVerifier, nested_parallel, verify_source

CASES = Path(__file__).resolve().parents[1] / "cases"


def _verifier(folder: str, function: str, mode: str = "serial", **settings: object) -> Iterator[FunctionVerifier]:
    path = CASES / folder / "original.c"
    with FunctionVerifier(
        path.read_text(), "c", function, mode=mode, settings=Settings(**settings),  # type: ignore[arg-type]
        source_path=path,
    ) as verifier:
        failure = verifier.prepare()
        assert failure is None, failure.detail
        yield verifier


@pytest.fixture(scope="module")
def prefix() -> Iterator[FunctionVerifier]:
    yield from _verifier("prefix", "prefix_sums")


@pytest.fixture(scope="module")
def omp() -> Iterator[FunctionVerifier]:
    yield from _verifier("omp", "weighted_sum", mode="openmp", threads=2)


def candidate(folder: str, name: str) -> str:
    return (CASES / folder / name).read_text()


def test_faster_holds_in_two_sessions_and_a_smaller_size_at_o3(prefix: FunctionVerifier) -> None:
    verdict = prefix.verify(candidate("prefix", "good_linear.c"))
    assert verdict.status is Status.FASTER, verdict.detail
    at_size = [s for s in verdict.sessions if s["size"] == verdict.problem_size and s["threads"] == 1]
    assert len(at_size) == 2 and all(s["status"] == "faster" for s in at_size)
    # The interval covers both sessions, not only one.
    assert verdict.ci95[0] == pytest.approx(min(s["ci95"][0] for s in at_size), abs=1e-3)
    assert verdict.ci95[1] == pytest.approx(max(s["ci95"][1] for s in at_size), abs=1e-3)
    smaller = [s for s in verdict.sessions if s["size"] < verdict.problem_size]
    assert len(smaller) == 1 and smaller[0]["status"] == "faster"  # prefix sums cost more as they grow
    assert "in two sessions" in verdict.detail
    assert verdict.flags == ["-O3"]
    assert verdict.compiler_alone is not None and verdict.compiler_alone > 0
    assert "-O3 -march=native" in verdict.detail


def test_a_speedup_that_vanishes_at_a_smaller_size_is_not_significant(prefix: FunctionVerifier) -> None:
    prepared = prefix._prepared
    assert prepared is not None and prepared.second_size is not None
    cut = (prepared.problem_size + prepared.second_size) // 2
    code = f"""
void prefix_sums(const double *a, double *out, int n) {{
    if (n > {cut}) {{
        double s = 0.0;
        for (int i = 0; i < n; i++) {{ s += a[i]; out[i] = s; }}
        return;
    }}
    for (int i = 0; i < n; i++) {{
        double s = 0.0;
        for (int j = 0; j <= i; j++)
            s += a[j];
        out[i] = s;
    }}
}}
"""
    verdict = prefix.verify(code)
    assert verdict.status is Status.NOT_SIGNIFICANT, verdict.detail
    assert "does not hold at a smaller size" in verdict.detail
    assert not verdict.verified


def test_a_loser_is_slower_in_two_sessions_as_a_winner_is_faster(prefix: FunctionVerifier) -> None:
    # The original's work twice over: slower, confirmed by a second, independent session (as a faster is).
    code = """
void prefix_sums(const double *a, double *out, int n) {
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j <= i; j++)
            s += a[j];
        out[i] = s;
    }
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j <= i; j++)
            s += a[j];
        if (out[i] != s)
            out[i] = s;
    }
}
"""
    verdict = prefix.verify(code)
    assert verdict.status is Status.SLOWER, verdict.detail
    assert [s["status"] for s in verdict.sessions] == ["slower", "slower"]
    assert {s["size"] for s in verdict.sessions} == {verdict.problem_size}  # no smaller size for a slowdown
    assert verdict.ci95[1] < 1 / 1.05 and "in two sessions" in verdict.detail


def test_the_flags_of_the_files_compile_commands_entry_are_the_verdicts(tmp_path: Path) -> None:
    source = (CASES / "prefix" / "good_linear.c").read_text()
    src = tmp_path / "k.c"
    src.write_text(source)
    (tmp_path / "compile_commands.json").write_text(json.dumps(
        [{"directory": str(tmp_path), "command": f"cc -O1 -fno-tree-vectorize -c {src}", "file": str(src)}]))
    verdict = verify_source(source, "c", "prefix_sums", source, settings=Settings(min_time_ms=5.0), source_path=src)
    assert verdict.status in TIMED, verdict.detail
    assert verdict.flags == ["-O1", "-fno-tree-vectorize"]  # the entry's level replaces the default -O3
    assert verdict.compiler_alone is not None


def test_a_candidate_slow_only_under_load_is_retried_not_timed_out(prefix: FunctionVerifier) -> None:
    # The first call of each process stalls for 11 s (as under a burst of load): past the 10 s a check call
    # gets, within the second try's 20 s. The second try runs it at a lower priority and it is timed.
    code = """
#include <time.h>
static int calls;
void prefix_sums(const double *a, double *out, int n) {
    if (calls++ == 0) {
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do clock_gettime(CLOCK_MONOTONIC, &t); while (t.tv_sec - t0.tv_sec < 11);
    }
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j <= i; j++)
            s += a[j];
        out[i] = s;
    }
}
"""
    verdict = prefix.verify(code)
    assert verdict.status in TIMED, verdict.detail
    assert verdict.status is not Status.FASTER


def test_a_parallel_rewrite_slower_at_one_thread_says_so(omp: FunctionVerifier) -> None:
    # Fast with two threads; with one it recomputes the weight for every element, twice.
    code = """
#include <math.h>
#include <omp.h>
double weighted_sum(const double *x, int n, double scale) {
    if (omp_get_max_threads() == 1) {
        double s = 0.0;
        for (int r = 0; r < 2; r++) {
            s = 0.0;
            for (int i = 0; i < n; i++)
                s += x[i] * (exp(scale) / (1.0 + pow(scale, 1.5)));
        }
        return s;
    }
    const double w = exp(scale) / (1.0 + pow(scale, 1.5));
    double s = 0.0;
    #pragma omp parallel for reduction(+:s)
    for (int i = 0; i < n; i++)
        s += x[i];
    return s * w;
}
"""
    verdict = omp.verify(code)
    assert verdict.status in TIMED, verdict.detail
    assert verdict.one_thread_speedup is not None and verdict.one_thread_speedup < 1.0
    assert "with 1 thread it is" in verdict.detail and "slower than the original" in verdict.detail
    assert any(s["threads"] == 1 for s in verdict.sessions)


def test_nested_parallel_regions_are_named() -> None:
    nested = """
int row_max(const int *a, int n) {
    int best = 0;
    #pragma omp parallel for reduction(max:best)
    for (int i = 0; i < n; i++) {
        int s = 0;
        #pragma omp parallel for reduction(+:s)
        for (int j = 0; j < n; j++)
            s += a[i * n + j];
        if (s > best) best = s;
    }
    return best;
}
"""
    flat = nested.replace("        #pragma omp parallel for reduction(+:s)\n", "")
    region = """
void scale(double *a, int n) {
    #pragma omp parallel
    {
        #pragma omp for
        for (int i = 0; i < n; i++) a[i] *= 2;
    }
}
"""
    assert nested_parallel(nested, "c") is not None and "inside another" in nested_parallel(nested, "c")
    assert nested_parallel(flat, "c") is None
    assert nested_parallel(region, "c") is None


EARLY_EXIT = """\
/* Index of the first negative element, or -1: it returns at the first one. */
int first_negative(const double *a, int n) {
    for (int i = 0; i < n; i++)
        if (a[i] < 0)
            return i;
    return -1;
}
"""

FULL_SCAN = """\
int first_negative(const double *a, int n) {
    int found = -1;
    for (int i = n - 1; i >= 0; i--)
        if (a[i] < 0)
            found = i;
    return found;
}
"""


def test_a_full_scan_against_an_early_exit_is_slower_not_a_timeout(tmp_path: Path) -> None:
    """The original returns quickly on most inputs; a correct rewrite that reads every element is slower."""
    src = tmp_path / "first.c"
    src.write_text(EARLY_EXIT)
    verdict = verify_source(EARLY_EXIT, "c", "first_negative", FULL_SCAN, settings=Settings(), source_path=src)
    assert verdict.status is Status.SLOWER, verdict.detail
    assert verdict.speedup is not None and verdict.speedup < 1


def test_the_time_a_one_thread_call_waited_for_a_cpu_is_not_the_functions() -> None:
    from perfalign.server.verify.judging._pair import own_time
    from perfalign.server.verify.sandbox._worker import Usage

    # A 20 µs call measured at 5 ms on a busy machine: 4.9 ms of it waiting for a CPU.
    before, after = Usage(1.0, 1.0, 1, 2.0), Usage(1.0, 1.00002, 1, 2.0049)
    assert abs(own_time(0.005, before, after) - 0.0001) < 1e-9
    # Never less than the time the call ran; a call that ran several threads keeps its wall time.
    assert own_time(0.005, before, Usage(1.0, 1.003, 1, 2.0049)) == pytest.approx(0.003)
    assert own_time(0.005, Usage(1.0, 1.0, 2, 2.0), Usage(1.0, 1.008, 2, 2.0049)) == 0.005


def test_a_call_ends_when_the_worker_answered_not_when_perfalign_read_the_answer(prefix: FunctionVerifier) -> None:
    # On a busy machine perfalign may read a reply long after the worker sent it; that wait is not the
    # function's. The kernel stamps the reply as it is sent, for serial and OpenMP workers alike.
    import time

    from perfalign.server.verify.harness import _cases
    from perfalign.server.verify.judging._pair import Pair
    from perfalign.server.verify._prepare import original_lockdown

    prepared = prefix._prepared
    assert prepared is not None
    serial = prefix.runner.start(prepared.original_exe, "the original", threads=1,
                                 lockdown=original_lockdown(prepared.toolchain))
    threaded = prefix.runner.start(prepared.original_exe, "the original", threads=2, lockdown="threads")
    try:
        for worker in (serial, threaded):
            worker.hello()
            pair = Pair(worker, worker, prepared.iface, prepared.plan, prepared.choice, None)
            case = _cases.case(prepared.plan, prepared.problem_size, 7)
            counts = pair.counts(case, 10)
            placed = pair.layout(case, counts, 0)
            assert placed is not None
            Pair.setup(worker, case, counts, placed[0], placed[1], 10)
            prompt = worker.call(10)
            done = worker.call_done

            def late(timeout: float, done=done) -> None:
                time.sleep(0.3)
                done(timeout)

            worker.call_done = late  # type: ignore[method-assign]
            read_late = worker.call(10)
            assert read_late < 0.15 and read_late < prompt + 0.1, (prompt, read_late)
    finally:
        serial.close()
        threaded.close()


def test_a_candidate_that_forges_the_workers_clock_is_not_faster() -> None:
    # A candidate shares its process with the worker: one that stops the clock (every reading the same)
    # does the original's work and must gain nothing by it.
    original = """void scale(double *a, int n, double s) {
    for (int i = 0; i < n; i++)
        a[i] *= s;
}
"""
    forger = """#include <time.h>
int clock_gettime(clockid_t clock, struct timespec *t) {
    (void)clock;
    t->tv_sec = 1;
    t->tv_nsec = 0;
    return 0;
}
void scale(double *a, int n, double s) {
    for (int i = 0; i < n; i++)
        a[i] *= s;
}
"""
    verdict = verify_source(original, "c", "scale", forger, settings=Settings(min_time_ms=5.0))
    assert verdict.status is not Status.FASTER, verdict.detail


def test_a_candidate_that_sleeps_in_its_call_is_not_faster(tmp_path: Path) -> None:
    # Sleeping is not waiting for a CPU: its time counts, so doing half the work and sleeping wins nothing.
    original = """void scale(double *a, int n, double s) {
    for (int i = 0; i < n; i++)
        a[i] *= s;
}
"""
    sleeper = """#include <time.h>
void scale(double *a, int n, double s) {
    struct timespec t = {0, 20 * 1000 * 1000};
    for (int i = 0; i < n; i++)
        a[i] *= s;
    nanosleep(&t, 0);
}
"""
    verdict = verify_source(original, "c", "scale", sleeper, settings=Settings(min_time_ms=5.0))
    assert verdict.status is not Status.FASTER, verdict.detail
    assert verdict.status in {Status.SLOWER, Status.REJECTED_UNSAFE, Status.CRASH}, verdict.detail
