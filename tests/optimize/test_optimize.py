"""The optimize pipeline and ``perfalign optimize`` with replayed model replies and the real verifier (gcc)."""
from __future__ import annotations

import json
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfalign.server.backends import FakeBackend, FakeOptions
from perfalign.server.cli import main
from perfalign.server.events import CandidateGenerated, Finished, Progress, VerdictReady
from perfalign.server.optimize._pipeline import OptimizeRequest, run_optimize
from perfalign.server.settings import Settings
from perfalign.server.verdict import Status

REPO = Path(__file__).resolve().parents[2]
FAST = """void row_sums(const double *a, double *sums, int n) {
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += a[i * n + j];
        sums[i] = s;
    }
}"""
WRONG = """void row_sums(const double *a, double *sums, int n) {
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += a[j * n + i];
        sums[i] = s;
    }
}"""


def fenced(code: str) -> str:
    return f"Here is a faster version:\n```c\n{code}\n```\n"


@pytest.fixture()
def row_sums(tmp_path: Path) -> Path:
    path = tmp_path / "row_sums.c"
    shutil.copy(REPO / "examples" / "c" / "row_sums.c", path)
    return path


def replies(tmp_path: Path, items: list[str] | dict[str, list[str]]) -> Path:
    path = tmp_path / "replies.json"
    path.write_text(json.dumps(items))
    return path


def settings_for(path: Path, **kw: object) -> Settings:
    return Settings(backend="fake", endpoint=str(path), log_to_store=False, repetitions=11, **kw)  # type: ignore[arg-type]


def run(request: OptimizeRequest, settings: Settings, **kw: object) -> tuple[list[object], Finished]:
    events = list(run_optimize(request, settings, **kw))  # type: ignore[arg-type]
    assert isinstance(events[-1], Finished)
    assert sum(isinstance(e, Finished) for e in events) == 1
    return events, events[-1]


def test_every_candidate_gets_a_verdict_and_the_fastest_is_suggested(tmp_path: Path, row_sums: Path) -> None:
    original = row_sums.read_text()
    items = [fenced(FAST), "I cannot help with that.", fenced(original.split("*/\n", 1)[1]), fenced("// same\n" + FAST)]
    # The first round alone: feedback rounds (tests/optimize/test_rounds.py) would add candidates
    # whenever this machine's timing leaves the rewrite unverified.
    settings = settings_for(replies(tmp_path, items), feedback_rounds=0)
    events, finished = run(OptimizeRequest(path=row_sums, function="row_sums", samples=4), settings)
    verdicts = {e.candidate.index: e.candidate.verdict for e in events if isinstance(e, VerdictReady)}
    seen = {i: f"{v.status}: {v.detail}" for i, v in verdicts.items()}
    assert sorted(verdicts) == [0, 1, 2, 3], seen
    assert verdicts[0].status is Status.FASTER, seen
    assert verdicts[1].status is Status.COMPILE_ERROR and "no usable code" in verdicts[1].detail
    assert verdicts[2].status is Status.NOT_SIGNIFICANT and "identical" in verdicts[2].detail
    assert verdicts[3].status is Status.FASTER and "same code as candidate 1" in verdicts[3].detail
    generated = [e.index for e in events if isinstance(e, CandidateGenerated)]
    assert generated == [0, 3]
    assert finished.outcome == "found"
    assert [c.index for c in finished.suggestions][0] in (0, 3)
    assert "verified faster" in finished.summary
    best = finished.suggestions[0]
    assert best.verdict.ci95 is not None and best.verdict.ci95[0] > 1.05
    assert best.diff.startswith("--- row_sums (original)") and "+        sums[i] = s;" in best.diff
    assert finished.original_code.startswith("void row_sums(")
    fractions = [e.fraction for e in events if isinstance(e, Progress)]
    assert fractions == sorted(fractions) or max(fractions) < 1.0
    # Progress says a faster rewrite exists as soon as one is verified, before the job ends.
    first_faster = next(i for i, e in enumerate(events) if isinstance(e, VerdictReady) and e.candidate.verdict.verified)
    messages = [e.message for e in events[first_faster:] if isinstance(e, Progress) and "sampled," in e.message]
    assert messages and all("verified" in m and "× faster so far" in m for m in messages)
    assert not any("faster so far" in e.message for e in events[:first_faster] if isinstance(e, Progress))
    assert row_sums.read_text() == original


def test_wrong_code_is_never_suggested(tmp_path: Path, row_sums: Path) -> None:
    _, finished = run(OptimizeRequest(path=row_sums, function="row_sums", samples=1), settings_for(replies(tmp_path, [fenced(WRONG)])))
    assert finished.candidates[0].verdict.status is Status.INCORRECT
    assert finished.suggestions == []
    assert finished.outcome == "none_faster"
    assert "incorrect" in finished.summary and "sums" in finished.summary


def test_nothing_usable_says_so(tmp_path: Path, row_sums: Path) -> None:
    items = ["Sorry, I can't.", "The function is already optimal."]
    _, finished = run(OptimizeRequest(path=row_sums, function="row_sums", samples=2), settings_for(replies(tmp_path, items)))
    assert finished.outcome == "nothing_usable"
    assert "nothing usable" in finished.summary and "no C or C++ function" in finished.summary
    assert len([c for c in finished.candidates if c.round == 1]) == 2


def test_editor_buffer_overrides_the_file(tmp_path: Path, row_sums: Path) -> None:
    buffer = row_sums.read_text() + "\nint unsaved(int x) { return x + 1; }\n"
    items = [fenced("int unsaved(int x) { return 1 + x; }")]
    request = OptimizeRequest(path=row_sums, text=buffer, line=buffer.count("\n") - 1, samples=1)
    _, finished = run(request, settings_for(replies(tmp_path, items)))
    assert finished.function == "unsaved"
    assert finished.candidates[0].verdict.status is not Status.COMPILE_ERROR


def test_unknown_function_is_an_error_with_a_reason(tmp_path: Path, row_sums: Path) -> None:
    events, finished = run(OptimizeRequest(path=row_sums, function="nope"), settings_for(replies(tmp_path, [""])))
    assert finished.outcome == "error"
    assert "nope" in finished.summary
    assert not any(isinstance(e, VerdictReady) for e in events)


def test_cancel_stops_the_job_promptly(tmp_path: Path, row_sums: Path) -> None:
    backend = FakeBackend(replies(tmp_path, [fenced(FAST)]), FakeOptions(delay_s=5.0))
    cancel = threading.Event()
    started = time.monotonic()
    finished = None
    for event in run_optimize(OptimizeRequest(path=row_sums, function="row_sums", samples=4), settings_for(tmp_path),
                              backend=backend, cancel=cancel):
        if isinstance(event, Progress) and not cancel.is_set():
            threading.Timer(0.3, cancel.set).start()
        if isinstance(event, Finished):
            finished = event
    assert finished is not None and finished.outcome == "cancelled"
    assert time.monotonic() - started < 15


def test_candidates_are_logged_to_the_store(tmp_path: Path, row_sums: Path) -> None:
    from perfalign.server.store import CandidateStore

    store = CandidateStore(tmp_path / "log.db")
    try:
        _, finished = run(OptimizeRequest(path=row_sums, function="row_sums", samples=2),
                          settings_for(replies(tmp_path, [fenced(FAST), "no code"])), store=store)
        assert finished.request_id is not None
        stored = store.candidates_of(finished.request_id)
        assert len(stored) == 2
        assert all(c.candidate_id for c in finished.candidates)
    finally:
        store.close()


def test_cli_json_and_apply(tmp_path: Path, row_sums: Path) -> None:
    path = replies(tmp_path, [fenced(WRONG), fenced(FAST)])
    (tmp_path / "perfalign.toml").write_text(
        f'[perfalign]\nbackend = "fake"\nendpoint = "{path}"\nlog_to_store = false\nrepetitions = 11\n'
    )
    before = row_sums.read_text()
    runner = CliRunner()
    result = runner.invoke(main, ["optimize", str(row_sums), "--function", "row_sums", "--samples", "2", "--json", "--apply"],
                           catch_exceptions=False)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [c["status"] for c in doc["candidates"]] == ["incorrect", "faster"]
    for c in doc["candidates"]:
        assert {"status", "speedup", "ci95", "p_value", "code", "diff", "detail"} <= set(c)
    assert doc["best"] == 1 and doc["applied"] is True
    after = row_sums.read_text()
    assert after != before
    assert after.startswith(before.split("void row_sums")[0])  # the comment above the function is untouched
    assert "double s = 0.0;" in after
    subprocess.run(["gcc", "-c", "-o", str(tmp_path / "out.o"), str(row_sums)], check=True)


def test_cli_apply_refuses_without_a_faster_candidate(tmp_path: Path, row_sums: Path) -> None:
    path = replies(tmp_path, [fenced(WRONG)])
    (tmp_path / "perfalign.toml").write_text(f'[perfalign]\nbackend = "fake"\nendpoint = "{path}"\nlog_to_store = false\n')
    before = row_sums.read_text()
    result = CliRunner().invoke(main, ["optimize", str(row_sums), "--function", "row_sums", "--samples", "1", "--apply"])
    assert result.exit_code == 1
    assert "not applied" in result.output
    assert row_sums.read_text() == before


def test_cli_errors_are_one_line(tmp_path: Path, row_sums: Path) -> None:
    path = replies(tmp_path, ["nothing here"])
    (tmp_path / "perfalign.toml").write_text(f'[perfalign]\nbackend = "fake"\nendpoint = "{path}"\nlog_to_store = false\n')
    runner = CliRunner()
    missing = runner.invoke(main, ["optimize", str(row_sums), "--function", "nope"])
    assert missing.exit_code == 1 and "nope" in missing.output and "Traceback" not in missing.output
    nothing = runner.invoke(main, ["optimize", str(row_sums), "--function", "row_sums", "--samples", "1"])
    assert nothing.exit_code == 3 and "nothing usable" in nothing.output
    both = runner.invoke(main, ["optimize", str(row_sums)])
    assert both.exit_code == 2 and "--function" in both.output


def test_the_backend_is_told_while_the_verifier_times(tmp_path: Path, row_sums: Path) -> None:
    """A local model leaves the verifier its cores only while a candidate is being timed."""

    class Recording(FakeBackend):
        busy: list[bool] = []

        def verifier_busy(self, busy: bool) -> None:
            self.busy.append(busy)

    backend = Recording(replies(tmp_path, [fenced(FAST), fenced(WRONG)]), FakeOptions())
    _, finished = run(OptimizeRequest(path=row_sums, function="row_sums", samples=2),
                      settings_for(tmp_path / "replies.json"), backend=backend)
    assert {c.verdict.status for c in finished.candidates} == {Status.FASTER, Status.INCORRECT}
    assert backend.busy == [True, False, True, False]


def test_a_parallel_candidate_is_timed_with_the_backend_told_its_threads(tmp_path: Path, row_sums: Path) -> None:
    """Timing an OpenMP candidate, the backend is told how many threads it runs (and stops sampling when they
    take every core); its checks, and a candidate that fails them, leave sampling as for a serial one."""

    class Recording(FakeBackend):
        told: list[tuple[bool, int]] = []

        def verifier_busy(self, busy: bool, *, threads: int = 1) -> None:
            self.told.append((busy, threads))

    parallel = FAST.replace("    for (int i = 0;", "#pragma omp parallel for\n    for (int i = 0;", 1)
    backend = Recording(replies(tmp_path, [fenced(parallel), fenced(WRONG)]), FakeOptions())
    _, finished = run(OptimizeRequest(path=row_sums, function="row_sums", mode="openmp", samples=2),
                      settings_for(tmp_path / "replies.json", threads=2), backend=backend)
    statuses = [c.verdict.status for c in finished.candidates]
    assert statuses[1] is Status.INCORRECT and statuses[0] is not Status.INCORRECT, finished.summary
    assert backend.told == [(True, 1), (True, 2), (False, 2), (False, 1),  # the parallel one, timed
                             (True, 1), (False, 1)]  # the wrong one: never timed


def test_file_scope_state_a_reply_declares_is_kept_and_a_result_cached_in_it_is_never_faster(
        tmp_path: Path, row_sums: Path) -> None:
    """Extraction keeps the reply's file-scope variables, so a rewrite that answers later calls from its first
    call's results reaches the verifier whole, and the checker catches it."""
    memo = """static int calls_ = 0;
static double memo_[4096];

void row_sums(const double *a, double *sums, int n) {
    if (calls_++ > 0 && n <= 4096) {
        for (int i = 0; i < n; i++)
            sums[i] = memo_[i];
        return;
    }
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += a[i * n + j];
        sums[i] = s;
        if (n <= 4096)
            memo_[i] = s;
    }
}"""
    backend = FakeBackend(replies(tmp_path, [fenced(memo)]), FakeOptions())
    _, finished = run(OptimizeRequest(path=row_sums, function="row_sums", samples=1),
                      settings_for(tmp_path / "replies.json", feedback_rounds=0), backend=backend)
    [candidate] = finished.candidates
    assert "static double memo_[4096];" in candidate.code
    assert candidate.verdict.status is Status.INCORRECT, candidate.verdict.detail
    assert not finished.suggestions
