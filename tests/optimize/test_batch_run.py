"""run_batch with the real verifier and the fake model: parallel jobs share one model, the budget stops a run."""
from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from perfalign.server.backends import FakeBackend, FakeOptions
from perfalign.server.optimize import BatchOptions, BatchState, find_targets, order_targets, plan_batch, run_batch
from perfalign.server.settings import Settings

SOURCE = """\
void scale(double *x, int n, double k) {
    for (int i = 0; i < n; i++)
        x[i] *= k;
}

void shift(double *x, int n, double k) {
    for (int i = 0; i < n; i++)
        x[i] += k;
}

int add(int a, int b) {
    return a + b;
}
"""


class Watched(FakeBackend):
    """The fake model, noting how many jobs sample from it at once."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, FakeOptions(delay_s=0.3))
        self.now = 0
        self.most = 0
        self.count = 0
        self.guard = threading.Lock()

    def generate(self, *args: Any, **kwargs: Any) -> list[str]:
        with self.guard:
            self.now += 1
            self.count += 1
            self.most = max(self.most, self.now)
        try:
            return super().generate(*args, **kwargs)
        finally:
            with self.guard:
                self.now -= 1


def setup(tmp_path: Path) -> tuple[list[Any], BatchState, Settings, Watched]:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "k.c").write_text(SOURCE)
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps(["I cannot help with that."]))
    settings = Settings(backend="fake", endpoint=str(replies), log_to_store=False, repetitions=11, feedback_rounds=0)
    state = BatchState.load(tmp_path / "report")
    items = plan_batch(order_targets(find_targets([tmp_path / "src"], tmp_path).targets), state, "serial")
    return items, state, settings, Watched(replies)


def test_two_jobs_share_one_model_one_generation_at_a_time(tmp_path: Path) -> None:
    items, state, settings, backend = setup(tmp_path)
    started: list[str] = []
    run = run_batch(items, state, settings, BatchOptions(jobs=2, samples=2), backend=backend,
                    on_event=lambda e: started.append(type(e).__name__))
    assert [i.disposition for i in run.items] == ["run", "run", "run"]
    assert {i.result.outcome for i in run.items if i.result} == {"nothing_usable"}
    assert backend.count == 3 and backend.most == 1
    assert started.count("Started") == 3 and started.count("Done") == 3
    assert len(BatchState.load(tmp_path / "report").results) == 3


def test_the_budget_stops_starting_and_cancels_the_running_job(tmp_path: Path) -> None:
    items, state, settings, backend = setup(tmp_path)
    run = run_batch(items, state, settings, BatchOptions(jobs=1, samples=2, budget_s=0.2), backend=backend)
    assert run.budget_spent and not run.interrupted
    assert [i.disposition for i in run.items] == ["stopped", "not_reached", "not_reached"]
    assert all(i.result is None for i in run.items)
    assert BatchState.load(tmp_path / "report").results == {}


def test_cancel_ends_the_run_as_interrupted(tmp_path: Path) -> None:
    items, state, settings, backend = setup(tmp_path)
    cancel = threading.Event()
    cancel.set()
    run = run_batch(items, state, settings, BatchOptions(samples=2), backend=backend, cancel=cancel)
    assert run.interrupted and all(i.result is None for i in run.items)
