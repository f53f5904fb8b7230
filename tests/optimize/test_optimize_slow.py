"""The real default model end to end (slow): pulled with `perfalign models pull`'s API, then run on two examples."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from perfalign.server.backends import BackendCancelled, SamplingParams, create_backend
from perfalign.server.events import Finished, VerdictReady
from perfalign.server.optimize._pipeline import OptimizeRequest, run_optimize
from perfalign.server.registry import pull
from perfalign.server.settings import Settings

from .test_strategies import COL_SUMS

REPO = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.alone]  # the real model samples on every core


@pytest.fixture(scope="module")
def backend():  # type: ignore[no-untyped-def]
    settings = Settings()
    pull(settings.model)  # already assembled by `make model`: only the hash is checked
    loaded = create_backend(settings)
    yield loaded
    loaded.close()


@pytest.mark.parametrize(("example", "function", "mode"), [
    ("c/row_sums.c", "row_sums", "serial"),
    ("c/count_in_range.c", "count_in_range", "openmp"),
])
def test_real_model_end_to_end(backend, example: str, function: str, mode: str) -> None:  # type: ignore[no-untyped-def]
    request = OptimizeRequest(path=REPO / "examples" / example, function=function, mode=mode, samples=2,
                              max_tokens=384, seed=3)
    events = list(run_optimize(request, Settings(log_to_store=False, feedback_rounds=0), backend=backend))
    finished = events[-1]
    assert isinstance(finished, Finished)
    assert finished.outcome in {"found", "none_faster", "nothing_usable"}, finished.summary
    assert len(finished.candidates) == 2
    assert sorted(e.candidate.index for e in events if isinstance(e, VerdictReady)) == [0, 1]
    for candidate in finished.candidates:
        assert candidate.raw_output.strip(), "the model wrote something"
        assert candidate.verdict.detail
    for suggestion in finished.suggestions:
        assert suggestion.verdict.ci95 is not None and suggestion.verdict.ci95[0] > 1.05


def test_batched_sampling_reports_each_sample_and_cancels(backend) -> None:  # type: ignore[no-untyped-def]
    messages = [{"role": "user", "content": "Write a C function that returns the sum of an int array."}]
    seen: list[int] = []
    texts = backend.generate(messages, 3, SamplingParams(max_tokens=48, temperature=0.8, top_p=0.95, seed=1), on_sample=lambda i, t: seen.append(i))
    assert len(texts) == 3 and all(t.strip() for t in texts)
    assert sorted(seen) == [0, 1, 2]
    assert backend.last_stats.generated_tokens == sum(backend.last_stats.per_sample_tokens) > 0
    cancel = threading.Event()
    threading.Timer(1.0, cancel.set).start()
    started = time.monotonic()
    with pytest.raises(BackendCancelled):
        backend.generate(messages, 2, SamplingParams(max_tokens=2000, temperature=0.8, top_p=0.95, seed=1), cancel=cancel)
    assert time.monotonic() - started < 30


def test_a_strided_function_gets_an_interchange_candidate_by_strategy(backend, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from perfalign.server.cparse import find_function
    from perfalign.server.optimize import analyse

    path = tmp_path / "col_sums.c"
    path.write_text(COL_SUMS)
    request = OptimizeRequest(path=path, function="col_sums", samples=2, max_tokens=384, seed=3)
    finished = list(run_optimize(request, Settings(log_to_store=False, feedback_rounds=0), backend=backend))[-1]
    assert isinstance(finished, Finished)
    asked = finished.candidates[0]
    assert asked.strategy == "loop_interchange", [c.strategy for c in finished.candidates]
    assert asked.code, asked.verdict.detail
    # the rewrite walks the matrix in the order it is laid out: no strided inner loop is left
    rewritten = find_function(asked.code, "c", name="col_sums")
    left = [f.kind for f in analyse(rewritten, asked.code, "serial", Settings(), remarks=False).findings]
    assert "strided_inner_loop" not in left, asked.code
