"""The verifier against real gcc: planted wrong candidates are rejected, good ones are faster."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

import numpy as np
import pytest

from perfalign.server.settings import Settings
from perfalign.server.verdict import TIMED, Status
from perfalign.server.verify._verifier import FunctionVerifier, verify_source

CASES = Path(__file__).resolve().parents[1] / "cases"


def _verifier(folder: str, function: str, mode: str = "serial", **settings: object) -> Iterator[FunctionVerifier]:
    path = CASES / folder / "original.c"
    with FunctionVerifier(
        path.read_text(), "c", function, mode=mode, settings=Settings(**settings), source_path=path  # type: ignore[arg-type]
    ) as verifier:
        failure = verifier.prepare()
        assert failure is None, failure.detail
        yield verifier


@pytest.fixture(scope="module")
def prefix() -> Iterator[FunctionVerifier]:
    yield from _verifier("prefix", "prefix_sums")


@pytest.fixture(scope="module")
def matrix() -> Iterator[FunctionVerifier]:
    yield from _verifier("matrix", "scale_columns")


@pytest.fixture(scope="module")
def omp() -> Iterator[FunctionVerifier]:
    yield from _verifier("omp", "weighted_sum", mode="openmp", threads=2)


def candidate(folder: str, name: str) -> str:
    return (CASES / folder / name).read_text()


def assert_faster(verdict) -> None:  # type: ignore[no-untyped-def]
    assert verdict.status is Status.FASTER, verdict.detail
    low, high = verdict.ci95
    assert 1.05 < low <= verdict.speedup <= high
    assert verdict.baseline_ms > verdict.candidate_ms > 0
    # Two sessions, each of 21 pairs, or of at least 8 where every pair (but one in eight) is far above the threshold.
    pairs = len(verdict.timings["baseline"])
    assert pairs == len(verdict.timings["candidate"]) and pairs >= 16
    assert pairs >= 42 or verdict.ci95[0] > 2 * 1.05 or verdict.speedup > 2 * 1.05
    assert set(verdict.phases) == {"compile", "check", "time"}
    assert verdict.problem_size and verdict.problem_size > 1000


@pytest.mark.parametrize(
    "name, status, words",
    [
        ("wrong_off_by_one.c", Status.INCORRECT, "'out'"),
        ("wrong_above_4096.c", Status.INCORRECT, "'out'[4096]"),
        ("wrong_cached.c", Status.INCORRECT, "'out'"),
        ("wrong_early_return.c", Status.INCORRECT, "'out'"),
        ("wrong_reads_past_end.c", Status.CRASH, "past the end of 'a'"),
        # Past the guard page, where a larger case's inputs lay: closed during the call, not left mapped.
        ("wrong_reads_far_past_end_later.c", Status.CRASH, "invalid memory access"),
        ("wrong_writes_input.c", Status.INCORRECT, "modified the input 'a'"),
    ],
)
def test_planted_wrong_candidates_are_rejected(prefix: FunctionVerifier, name: str, status: Status, words: str) -> None:
    verdict = prefix.verify(candidate("prefix", name))
    assert verdict.status is status, verdict.detail
    assert words in verdict.detail
    assert verdict.speedup is None


def test_a_wrong_result_on_a_small_case_comes_with_the_call_written_out(prefix: FunctionVerifier) -> None:
    """The inputs shown are the ones the call got: the original's outputs follow from them, and so do the
    off-by-one rewrite's (each sum one element late)."""
    verdict = prefix.verify(candidate("prefix", "wrong_off_by_one.c"))
    assert verdict.status is Status.INCORRECT, verdict.detail
    call, original, rewrite = verdict.example.splitlines()
    given = re.fullmatch(r"call: prefix_sums\(a, out, n\) with a = \{(.*)\}, out = \{.*\} on entry, n = (\d+)", call)
    assert given is not None, call
    a = [float(v) for v in given.group(1).split(", ")]
    assert len(a) == int(given.group(2)) <= 16
    inclusive = np.cumsum(np.array(a, dtype=np.float64))
    exclusive = np.concatenate([[0.0], inclusive[:-1]])
    assert original == "original: out = {" + ", ".join(str(v) for v in inclusive) + "}"
    assert rewrite == "rewrite:  out = {" + ", ".join(str(v) for v in exclusive) + "}"
    # a case too large to write out still has its one-line mismatch, and no call
    late = prefix.verify(candidate("prefix", "wrong_above_4096.c"))
    assert late.status is Status.INCORRECT and late.example == ""


def test_quadratic_to_linear_rewrite_is_faster(prefix: FunctionVerifier) -> None:
    assert_faster(prefix.verify(candidate("prefix", "good_linear.c")))


def test_the_original_itself_is_never_faster(prefix: FunctionVerifier) -> None:
    verdict = prefix.verify(candidate("prefix", "original.c"))
    assert verdict.status in TIMED and verdict.status is not Status.FASTER
    assert verdict.ci95[0] <= verdict.ci95[1]


def test_loop_interchange_is_faster(matrix: FunctionVerifier) -> None:
    assert_faster(matrix.verify(candidate("matrix", "good_interchange.c")))


def test_transposed_indexing_is_incorrect(matrix: FunctionVerifier) -> None:
    assert matrix.verify(candidate("matrix", "wrong_transposed.c")).status is Status.INCORRECT


def test_openmp_reduction_is_faster_and_reports_threads(omp: FunctionVerifier) -> None:
    verdict = omp.verify(candidate("omp", "good_reduction.c"))
    assert_faster(verdict)
    assert verdict.threads == 2 and verdict.mode == "openmp"


def test_racy_openmp_reduction_is_incorrect(omp: FunctionVerifier) -> None:
    verdict = omp.verify(candidate("omp", "wrong_racy.c"))
    assert verdict.status is Status.INCORRECT, verdict.detail
    assert "threads" in verdict.detail  # "... at 4 threads" or "a data race between OpenMP threads"


@pytest.fixture
def private_tmp(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A temp folder of this test's own (others may be verifying at the same time); readable by the sandbox user."""
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="perfalign-test-"))
    folder.chmod(0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_one_shot_verify_cleans_up(private_tmp: Path) -> None:
    path = CASES / "prefix" / "original.c"
    verdict = verify_source(
        path.read_text(), "c", "prefix_sums", candidate("prefix", "wrong_off_by_one.c"), settings=Settings()
    )
    assert verdict.status is Status.INCORRECT
    assert list(private_tmp.iterdir()) == []
