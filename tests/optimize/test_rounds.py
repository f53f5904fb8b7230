"""Feedback rounds with replayed model replies and the real verifier (gcc): repair, improvement, budget, cancel, log."""
from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfalign.server.backends import FakeBackend, FakeOptions
from perfalign.server.cli import main
from perfalign.server.events import Finished, Progress, VerdictReady
from perfalign.server.optimize import OptimizeRequest, run_optimize
from perfalign.server.settings import Settings
from perfalign.server.store import CandidateStore, export
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
# Uses a name that is never declared: gcc stops with "'total' undeclared".
BROKEN = FAST.replace("s += a[i * n + j];", "total += a[i * n + j];")
# Reads the matrix by columns: compiles, computes the wrong sums.
WRONG = FAST.replace("a[i * n + j]", "a[j * n + i]")
# The original's loops, written again: correct, and no faster.
SAME_SPEED = """void row_sums(const double *a, double *sums, int n) {
    for (int i = 0; i < n; i++)
        sums[i] = 0.0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            double v = a[i * n + j];
            sums[i] += v;
        }
}"""


def fenced(code: str) -> str:
    return f"Here it is:\n```c\n{code}\n```\n"


@pytest.fixture()
def row_sums(tmp_path: Path) -> Path:
    path = tmp_path / "row_sums.c"
    shutil.copy(REPO / "examples" / "c" / "row_sums.c", path)
    return path


def backend_for(tmp_path: Path, codes: list[str], delay_s: float = 0.0) -> FakeBackend:
    path = tmp_path / "replies.json"
    path.write_text(json.dumps([fenced(c) for c in codes]))
    return FakeBackend(path, FakeOptions(delay_s=delay_s))


def settings(**kw: object) -> Settings:
    return Settings(backend="fake", log_to_store=False, repetitions=11, **kw)  # type: ignore[arg-type]


def run(request: OptimizeRequest, s: Settings, **kw: object) -> tuple[list[object], Finished]:
    events = list(run_optimize(request, s, **kw))  # type: ignore[arg-type]
    assert isinstance(events[-1], Finished)
    return events, events[-1]


def test_a_candidate_that_does_not_compile_is_repaired_and_the_repair_is_suggested(tmp_path: Path,
                                                                                  row_sums: Path) -> None:
    backend = backend_for(tmp_path, [BROKEN, FAST])
    events, finished = run(OptimizeRequest(path=row_sums, function="row_sums", samples=1), settings(), backend=backend)
    first, repair = finished.candidates
    assert first.verdict.status is Status.COMPILE_ERROR and "total" in first.verdict.detail
    assert (first.round, first.parent, first.feedback) == (1, None, None)
    assert (repair.round, repair.parent, repair.feedback) == (2, 0, "repair")
    assert repair.verdict.status is Status.FASTER
    assert finished.outcome == "found" and finished.suggestions == [repair]
    assert "1 repaired, 1 verified faster" in finished.summary
    # The follow-up turn continues the first conversation: the candidate, then the compiler's first error.
    assert len(backend.calls) == 2
    turn = backend.calls[1]
    assert turn[:2] == backend.calls[0]
    assert turn[2]["role"] == "assistant" and "total += a[i * n + j];" in turn[2]["content"]
    assert turn[3]["role"] == "user" and "does not compile" in turn[3]["content"]
    assert first.verdict.detail in turn[3]["content"] and "`row_sums`" in turn[3]["content"]
    # The round shows in the progress, and the repair is reported before the job ends.
    messages = [e.message for e in events if isinstance(e, Progress)]
    assert "round 2: repairing 1 candidate" in messages
    ready = [e.candidate.index for e in events if isinstance(e, VerdictReady)]
    assert ready == [0, 1]
    fractions = [e.fraction for e in events if isinstance(e, Progress)]
    assert fractions == sorted(fractions) and max(fractions) < 1.0
    assert finished.candidates[1].to_dict()["round"] == 2 and finished.candidates[1].to_dict()["parent"] == 0


def test_an_incorrect_candidate_is_shown_the_mismatch_and_a_slow_one_its_timing(tmp_path: Path,
                                                                               row_sums: Path) -> None:
    backend = backend_for(tmp_path, [WRONG, SAME_SPEED, FAST, FAST])
    _, finished = run(OptimizeRequest(path=row_sums, function="row_sums", samples=2),
                      settings(enough_suggestions=2), backend=backend)
    statuses = [(c.round, c.parent, c.feedback, c.verdict.status) for c in finished.candidates]
    assert statuses[0] == (1, None, None, Status.INCORRECT)
    assert statuses[1][:3] == (1, None, None) and statuses[1][3] in (Status.NOT_SIGNIFICANT, Status.SLOWER)
    # Repairs go first; the second answer repeats the first's code and gets its verdict.
    assert statuses[2:] == [(2, 0, "repair", Status.FASTER), (2, 1, "improve", Status.FASTER)]
    repair_turn, improve_turn = (call[-1]["content"] for call in backend.calls[-2:])
    assert "computes something different" in repair_turn and "sums" in repair_turn
    assert "it is not faster" in improve_turn and " ms" in improve_turn
    assert "OpenMP" in improve_turn  # serial mode: no threads, still
    assert len(finished.suggestions) == 2


def test_no_round_runs_when_switched_off_or_when_the_first_round_found_enough(tmp_path: Path, row_sums: Path) -> None:
    backend = backend_for(tmp_path, [BROKEN, FAST])
    _, finished = run(OptimizeRequest(path=row_sums, function="row_sums", samples=1), settings(feedback_rounds=0),
                      backend=backend)
    assert [c.round for c in finished.candidates] == [1] and len(backend.calls) == 1
    assert "feedback" not in finished.summary

    backend = backend_for(tmp_path, [FAST, BROKEN])
    _, finished = run(OptimizeRequest(path=row_sums, function="row_sums", samples=2), settings(), backend=backend)
    assert [c.verdict.status for c in finished.candidates] == [Status.FASTER, Status.COMPILE_ERROR]
    assert all(len(call) == 2 for call in backend.calls), "one verified suggestion is enough: no repair is asked for"


def test_the_same_failure_is_never_sent_twice(tmp_path: Path, row_sums: Path) -> None:
    # The model answers the repair with the same broken code: round 3 has nothing new to send.
    backend = backend_for(tmp_path, [BROKEN])
    _, finished = run(OptimizeRequest(path=row_sums, function="row_sums", samples=1), settings(feedback_rounds=3),
                      backend=backend)
    assert [(c.round, c.verdict.status) for c in finished.candidates] == [(1, Status.COMPILE_ERROR),
                                                                          (2, Status.COMPILE_ERROR)]
    assert "same code as candidate 1" in finished.candidates[1].verdict.detail
    assert len(backend.calls) == 2


class SlowFirstReply(FakeBackend):
    """The fake model, taking ``first_s`` over its first reply, as a real model's first round takes a while."""

    def __init__(self, path: Path, first_s: float) -> None:
        super().__init__(path, FakeOptions())
        self.first_s = first_s

    def generate(self, messages, n, params, *, cancel=None, on_sample=None):  # type: ignore[no-untyped-def]
        if not self.calls:
            time.sleep(self.first_s)
        return super().generate(messages, n, params, cancel=cancel, on_sample=on_sample)


def test_a_job_whose_first_round_found_nothing_gets_its_feedback_round_past_the_budget(tmp_path: Path,
                                                                                     row_sums: Path) -> None:
    # A budget already spent when the first round ends: the first round found nothing, so the repair runs anyway,
    # given as long as the first round took. That round is made to take 20 s, as a real model's would: with the
    # fake model's instant replies it lasted only the preparation, which on a loaded machine can be shorter than
    # timing the repair.
    backend_for(tmp_path, [BROKEN, FAST])
    backend = SlowFirstReply(tmp_path / "replies.json", first_s=20.0)
    events, finished = run(OptimizeRequest(path=row_sums, function="row_sums", samples=1),
                           settings(job_budget_s=0.1), backend=backend)
    assert [c.round for c in finished.candidates] == [1, 2] and len(backend.calls) == 2
    assert finished.outcome == "found"
    assert "the first round found nothing, so its feedback round ran past the 0.1 s budget" in finished.summary
    assert any(isinstance(e, Progress) and e.message.startswith("round 2: repairing 1 candidate") for e in events)


def test_the_budget_decides_every_later_round(tmp_path: Path, row_sums: Path) -> None:
    # Round 2 is the first round's due; round 3 starts only within the budget, which is spent.
    broken_again = FAST.replace("sums[i] = s;", "sums[i] = total;")
    backend = backend_for(tmp_path, [BROKEN, broken_again, FAST])
    _, finished = run(OptimizeRequest(path=row_sums, function="row_sums", samples=1),
                      settings(job_budget_s=0.1, feedback_rounds=2), backend=backend)
    assert [c.round for c in finished.candidates] == [1, 2] and len(backend.calls) == 2
    assert "no further feedback round: the job had used its 0.1 s budget" in finished.summary
    assert finished.outcome == "none_faster"


def test_no_later_round_starts_when_the_budget_left_is_shorter_than_the_last_rounds_wait_for_a_verdict(
        tmp_path: Path, row_sums: Path) -> None:
    # The model takes 6 s a reply: each round's first verdict comes after at least 6 s. Round 2 (the first
    # round found nothing) runs whatever the budget; it ends about 12 s in, and the 16 s budget leaves less than
    # a round's wait: no third round is asked for.
    broken_again = FAST.replace("sums[i] = s;", "sums[i] = total;")
    backend = backend_for(tmp_path, [BROKEN, broken_again, FAST], delay_s=6.0)
    events, finished = run(OptimizeRequest(path=row_sums, function="row_sums", samples=1),
                           settings(job_budget_s=16.0, feedback_rounds=2), backend=backend)
    assert [c.round for c in finished.candidates] == [1, 2] and len(backend.calls) == 2
    assert not any(isinstance(e, Progress) and e.message.startswith("round 3") for e in events)
    assert "no further feedback round" in finished.summary
    if "used its 16 s budget" not in finished.summary:  # round 2 ended within the budget (not under load)
        assert "less than the" in finished.summary and "round 2 took to its first verdict" in finished.summary

    # With room for one more wait, the third round is asked for and verified.
    backend = backend_for(tmp_path, [BROKEN, broken_again, FAST], delay_s=1.0)
    _, finished = run(OptimizeRequest(path=row_sums, function="row_sums", samples=1),
                      settings(job_budget_s=120.0, feedback_rounds=2), backend=backend)
    assert [c.round for c in finished.candidates] == [1, 2, 3]


def test_cancel_during_a_repair_round(tmp_path: Path, row_sums: Path) -> None:
    backend = backend_for(tmp_path, [BROKEN, FAST])
    cancel = threading.Event()
    seen: list[object] = []
    cancelled_at = None
    for event in run_optimize(OptimizeRequest(path=row_sums, function="row_sums", samples=1),
                              settings(), backend=backend, cancel=cancel):
        seen.append(event)
        if isinstance(event, Progress) and event.message.startswith("round 2") and not cancel.is_set():
            cancel.set()
            cancelled_at = time.monotonic()
    finished = seen[-1]
    assert cancelled_at is not None and isinstance(finished, Finished)
    assert finished.outcome == "cancelled"
    # The repair was being built, checked or timed: it never got a verdict.
    assert [c.round for c in finished.candidates] == [1]
    assert time.monotonic() - cancelled_at < 15


def test_rounds_are_stored_with_their_parent_and_exported_as_repair_pairs(tmp_path: Path, row_sums: Path) -> None:
    backend = backend_for(tmp_path, [BROKEN, FAST])
    db = tmp_path / "log.db"
    with CandidateStore(db) as store:
        _, finished = run(OptimizeRequest(path=row_sums, function="row_sums", samples=1), settings(),
                          backend=backend, store=store)
        assert finished.request_id is not None
        first, repair = store.candidates_of(finished.request_id)
        assert (first.round, first.parent_id, first.round_kind) == (1, None, None)
        assert (repair.round, repair.parent_id, repair.round_kind) == (2, first.id, "repair")
        assert "does not compile" in repair.round_feedback and first.verdict.detail in repair.round_feedback
        assert repair.prompt_version and repair.prompt_version.startswith("feedback-")
        assert repair.sampling["round"] == 2 and repair.sampling["n"] == 1
        result = export(store, tmp_path / "out", kinds=("repair",))
    [row] = [json.loads(line) for line in result.files["repair"].read_text().splitlines()]
    assert row["kind"] == "repair" and row["round"] == 2
    assert (row["rejected_status"], row["chosen_status"]) == ("compile_error", "faster")
    assert "total +=" in row["rejected"][0]["content"] and "s += a[i * n + j];" in row["chosen"][0]["content"]
    assert [m["role"] for m in row["prompt"]] == ["system", "user", "assistant", "user"]
    assert row["prompt"][-1]["content"] == repair.round_feedback
    assert row["messages"] == [*row["prompt"], *row["chosen"]]
    assert (row["rejected_id"], row["chosen_id"]) == (first.id, repair.id)

    # `prefs show` tells a reviewer which round a suggestion came from.
    shown = CliRunner().invoke(main, ["prefs", "show", repair.id, "-d", str(db)], catch_exceptions=False)
    assert shown.exit_code == 0, shown.output
    assert f"round 2: a repair of candidate {first.id} (compile_error)" in shown.output
    assert "the model was told: Your rewrite does not compile" in shown.output
    listed = CliRunner().invoke(main, ["prefs", "show", finished.request_id, "-d", str(db)], catch_exceptions=False)
    assert f"round 2, repair of {first.id}" in listed.output
    as_json = json.loads(CliRunner().invoke(main, ["prefs", "show", repair.id, "-d", str(db), "--json"],
                                            catch_exceptions=False).stdout)
    assert as_json["candidate"]["round"] == 2 and as_json["candidate"]["parent_id"] == first.id


def test_a_reply_without_a_whole_function_is_sent_back_for_the_whole_function(tmp_path: Path,
                                                                             row_sums: Path) -> None:
    fragment = "for (int i = 0; i < n; i++) {\n    double s = 0.0;\n}"
    path = tmp_path / "replies.json"
    path.write_text(json.dumps([f"```c\n{fragment}\n```", fenced(FAST)]))
    backend = FakeBackend(path, FakeOptions())
    _, finished = run(OptimizeRequest(path=row_sums, function="row_sums", samples=1), settings(), backend=backend)
    first, repair = finished.candidates
    assert first.verdict.status is Status.COMPILE_ERROR and first.verdict.detail.startswith("no usable code")
    assert (repair.parent, repair.feedback) == (0, "repair")
    turn = backend.calls[1]
    assert turn[2] == {"role": "assistant", "content": f"```c\n{fragment}\n```"}
    assert "does not hold a complete `row_sums` function" in turn[3]["content"]
    assert repair.verdict.status in (Status.FASTER, Status.NOT_SIGNIFICANT)  # correct: timing decides the rest
