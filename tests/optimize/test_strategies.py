"""Strategies in an optimize job, with replayed model replies and the real verifier (gcc): each sample is asked for a
different one, the strategy is kept with its candidate through the rounds, the store and the exports, and the
suggestion names it."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfalign.server.backends import FakeBackend, FakeOptions
from perfalign.server.cli import main
from perfalign.server.events import Finished
from perfalign.server.optimize import OptimizeRequest, run_optimize
from perfalign.server.settings import Settings
from perfalign.server.store import CandidateStore, export
from perfalign.server.verdict import Status

COL_SUMS = """void col_sums(const double *restrict m, double *restrict out, int rows, int cols) {
    for (int j = 0; j < cols; j++) {
        double s = 0.0;
        for (int i = 0; i < rows; i++)
            s += m[i * cols + j];
        out[j] = s;
    }
}
"""
# Rows outside, columns inside: every sum gets the same additions in the same order, walking memory in order.
INTERCHANGED = """void col_sums(const double *restrict m, double *restrict out, int rows, int cols) {
    for (int j = 0; j < cols; j++)
        out[j] = 0.0;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            out[j] += m[i * cols + j];
}"""
BROKEN = INTERCHANGED.replace("out[j] += m", "total += m")
SAME = COL_SUMS.replace("double s = 0.0;", "double s = 0.0; /* again */").strip()
STRATEGY_LINE = "Strategy for this rewrite: loop interchange."


@pytest.fixture()
def col_sums(tmp_path: Path) -> Path:
    path = tmp_path / "col_sums.c"
    path.write_text(COL_SUMS)
    return path


def backend_for(tmp_path: Path, codes: list[str]) -> FakeBackend:
    path = tmp_path / "replies.json"
    path.write_text(json.dumps([f"```c\n{c}\n```\n" for c in codes]))
    return FakeBackend(path, FakeOptions())


def settings(**kw: object) -> Settings:
    return Settings(**{"backend": "fake", "log_to_store": False, "repetitions": 11, **kw})  # type: ignore[arg-type]


def finish(events: list[object]) -> Finished:
    assert isinstance(events[-1], Finished)
    return events[-1]


def test_each_sample_is_asked_for_a_different_strategy_and_the_suggestion_names_its_own(tmp_path: Path,
                                                                                         col_sums: Path) -> None:
    backend = backend_for(tmp_path, [INTERCHANGED, SAME])
    finished = finish(list(run_optimize(OptimizeRequest(path=col_sums, function="col_sums", samples=2, seed=1),
                                        settings(feedback_rounds=0), backend=backend)))
    asked, free = [call[-1]["content"] for call in backend.calls]
    assert STRATEGY_LINE in asked and "stride `cols`" in asked
    head, _, ask = free.rpartition("\n\n")
    assert "Strategy for this rewrite" not in free and asked.startswith(head) and asked.endswith(ask)
    first, second = finished.candidates
    assert (first.strategy, first.strategy_name) == ("loop_interchange", "loop interchange")
    assert (second.strategy, second.strategy_name) == (None, "")
    assert first.verdict.status is Status.FASTER, first.verdict.detail
    assert finished.suggestions[0].strategy == "loop_interchange"
    assert "best by loop interchange" in finished.summary
    assert first.to_dict()["strategy"] == "loop_interchange"


def test_no_strategy_is_asked_for_when_switched_off(tmp_path: Path, col_sums: Path) -> None:
    backend = backend_for(tmp_path, [SAME])
    finished = finish(list(run_optimize(OptimizeRequest(path=col_sums, function="col_sums", samples=2),
                                        settings(strategies=False, feedback_rounds=0), backend=backend)))
    assert len(backend.calls) == 1 and "Strategy for this rewrite" not in backend.calls[0][-1]["content"]
    assert all(c.strategy is None for c in finished.candidates)


def test_a_repair_continues_its_strategys_conversation_and_the_store_and_exports_keep_the_strategy(
        tmp_path: Path, col_sums: Path) -> None:
    backend = backend_for(tmp_path, [BROKEN, SAME, INTERCHANGED, SAME])
    db = tmp_path / "log.db"
    with CandidateStore(db) as store:
        finished = finish(list(run_optimize(OptimizeRequest(path=col_sums, function="col_sums", samples=2, seed=1),
                                            settings(log_to_store=True), backend=backend, store=store)))
        broken, _same, repair = finished.candidates[:3]
        assert broken.verdict.status is Status.COMPILE_ERROR
        assert (repair.round, repair.parent, repair.feedback) == (2, 0, "repair")
        assert repair.strategy == "loop_interchange"
        repair_call = backend.calls[2]
        assert STRATEGY_LINE in repair_call[1]["content"]  # the conversation its candidate began with
        assert repair_call[-1]["content"].startswith("Your rewrite does not compile")
        assert repair.verdict.status is Status.FASTER, repair.verdict.detail

        assert finished.request_id is not None
        stored = store.candidates_of(finished.request_id)
        by_round = {(c.round, c.strategy) for c in stored}
        assert (1, "loop_interchange") in by_round and (1, None) in by_round and (2, "loop_interchange") in by_round
        asked = next(c for c in stored if c.round == 1 and c.strategy)
        assert asked.strategy_prompt.startswith(STRATEGY_LINE)
        assert next(c for c in stored if c.round == 1 and not c.strategy).strategy_prompt == ""
        result = export(store, tmp_path / "out", kinds=("sft", "repair"))
    shown = CliRunner().invoke(main, ["prefs", "show", asked.id, "-d", str(db)], catch_exceptions=False)
    assert shown.exit_code == 0 and "asked for: loop interchange" in shown.output
    [sft] = [json.loads(line) for line in result.files["sft"].read_text().splitlines()]
    assert sft["strategy"] == "loop_interchange" and STRATEGY_LINE in sft["messages"][1]["content"]
    [pair] = [json.loads(line) for line in result.files["repair"].read_text().splitlines()]
    assert pair["strategy"] == "loop_interchange" and STRATEGY_LINE in pair["prompt"][1]["content"]
    assert pair["prompt"][-1]["content"].startswith("Your rewrite does not compile")
