"""A batch run: the optimize pipeline on every function of a tree, in a time budget, resumable.

:func:`plan_batch` orders the targets (``order_targets``), picks each one's mode and looks each up in the
state of earlier runs: a function whose body is unchanged since a final result is reused, not run again.
:func:`run_batch` runs the rest through :func:`run_optimize`, one job per function, ``jobs`` at a time,
all sampling from one loaded model (its generation is serialised: while one job samples, another's
candidates are compiled and timed). Each result is written to the state file as soon as its job ends.
At the budget or on an interrupt the running jobs are cancelled; they are not recorded, so the next run
does them again, and nothing recorded is lost.
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .. import cparse
from ..backends import Backend, LockedBackend
from ..errors import CParseError, bug_message
from ..events import Finished, Progress
from ..events import Outcome as JobOutcome
from ..settings import Settings
from ._batch_state import BatchOutcome, BatchState, FunctionResult, Suggestion
from ._extract import extract
from ._log import StoreLike
from ._pipeline import OptimizeRequest, run_optimize
from ._targets import Target

BATCH_MODES = ("serial", "openmp", "auto")


class Disposition:
    """What a batch run did with a function."""

    RUN = "run"  # run on this run
    REUSED = "reused"  # a final result of an earlier run, for the same body
    NOT_REACHED = "not_reached"  # the budget ran out (or the run was interrupted) before it started
    STOPPED = "stopped"  # started, then cancelled at the budget or by an interrupt: not recorded


@dataclass
class Item:
    target: Target
    mode: str
    disposition: str
    result: FunctionResult | None = None  # this run's or the reused one (None when not run to the end)


@dataclass
class BatchOptions:
    mode: str = "serial"  # serial | openmp | auto
    jobs: int = 1
    budget_s: float | None = None
    samples: int | None = None
    model: str | None = None
    max_tokens: int = 768
    seed: int | None = None
    workspace: Path | None = None


@dataclass
class BatchRun:
    """What one batch run did, for the report and the exit status."""

    items: list[Item]
    elapsed_s: float = 0.0
    budget_spent: bool = False
    interrupted: bool = False
    notes: list[str] = field(default_factory=list)

    def count(self, disposition: str) -> int:
        return sum(item.disposition == disposition for item in self.items)

    @property
    def errors(self) -> list[Item]:
        """Functions whose job failed for a reason that is not the function's (the model, perfalign)."""
        return [i for i in self.items if i.result is not None and i.result.outcome == BatchOutcome.ERROR]


@dataclass
class Started:
    item: Item
    position: int  # 1-based among the functions this run starts
    total: int


@dataclass
class Working:
    item: Item
    message: str


@dataclass
class Done:
    item: Item


BatchEvent = Started | Working | Done


def mode_for(target: Target, mode: str, cores: int | None = None) -> str:
    """``auto``: OpenMP for a function with a loop when this machine has more than one core, serial otherwise."""
    if mode != "auto":
        return mode
    cores = cores if cores is not None else (os.cpu_count() or 1)
    return "openmp" if target.loops and cores > 1 else "serial"


def plan_batch(targets: list[Target], state: BatchState, mode: str) -> list[Item]:
    """One item per target, in the order given: reused when the state holds a final result for its body."""
    items = []
    for target in targets:
        chosen = mode_for(target, mode)
        earlier = state.done(target.relpath, target.function, chosen, target.body_hash)
        if earlier is not None:
            items.append(Item(target, chosen, Disposition.REUSED, earlier))
        else:
            items.append(Item(target, chosen, Disposition.NOT_REACHED))
    return items


class _LockedStore:
    """The preference store, written by one job at a time."""

    def __init__(self, store: StoreLike) -> None:
        self._store = store
        self._lock = threading.Lock()

    def record_request(self, req: Any) -> str:
        with self._lock:
            return self._store.record_request(req)

    def record_candidate(self, request_id: str, cand: Any) -> str:
        with self._lock:
            return self._store.record_candidate(request_id, cand)


def run_batch(
    items: list[Item],
    state: BatchState,
    settings: Settings,
    options: BatchOptions,
    *,
    backend: Backend,
    store: StoreLike | None = None,
    cancel: threading.Event | None = None,
    on_event: Callable[[BatchEvent], None] | None = None,
) -> BatchRun:
    """Run every item not reused, best first, until the budget is spent or ``cancel`` is set.

    A KeyboardInterrupt while waiting stops the running jobs the same way; the run returns normally
    with ``interrupted`` set, so the caller can still write the report. A batch times as background work: a
    request the user makes meanwhile (in an editor, on this machine) is timed first.
    """
    settings = settings.with_values(timing_priority="background")
    started = time.monotonic()
    deadline = started + options.budget_s if options.budget_s is not None else None
    stop = threading.Event()
    run = BatchRun(items)
    todo = [item for item in items if item.disposition == Disposition.NOT_REACHED]
    shared = LockedBackend(backend)
    locked = _LockedStore(store) if store is not None else None
    lock = threading.Lock()
    position = 0
    emit = on_event or (lambda _event: None)

    def take() -> tuple[Item, int] | None:
        nonlocal position
        with lock:
            if stop.is_set() or not todo:
                return None
            position += 1
            return todo.pop(0), position

    def worker() -> None:
        while (taken := take()) is not None:
            item, number = taken
            item.disposition = Disposition.STOPPED
            emit(Started(item, number, number + len(todo)))
            result = _run_one(item, settings, options, shared, locked, stop, emit)
            if result is None:
                continue
            item.result = result
            item.disposition = Disposition.RUN
            with lock:
                try:
                    state.record(result)
                except OSError as exc:
                    run.notes.append(f"cannot write {state.path}: {exc.strerror}; the run cannot resume from it")
            emit(Done(item))

    threads = [threading.Thread(target=worker, name=f"perfalign-batch-{n}", daemon=True)
               for n in range(max(1, min(options.jobs, len(todo))))]
    for thread in threads:
        thread.start()
    while any(thread.is_alive() for thread in threads):
        try:
            if cancel is not None and cancel.is_set() and not stop.is_set():
                run.interrupted = True
                stop.set()
            if deadline is not None and time.monotonic() >= deadline and not stop.is_set():
                run.budget_spent = True
                stop.set()
            for thread in threads:
                thread.join(timeout=0.1)
        except KeyboardInterrupt:
            run.interrupted = True
            stop.set()
    run.elapsed_s = time.monotonic() - started
    return run


def _run_one(item: Item, settings: Settings, options: BatchOptions, backend: LockedBackend,
             store: StoreLike | None, stop: threading.Event,
             emit: Callable[[BatchEvent], None]) -> FunctionResult | None:
    """One function's job; None when it was cancelled before it ended."""
    target = item.target
    began = time.monotonic()
    model = options.model or settings.model

    def result(outcome: str, summary: str, **kw: Any) -> FunctionResult:
        return FunctionResult(relpath=target.relpath, function=target.function, mode=item.mode,
                              body_hash=target.body_hash, outcome=outcome, summary=summary, model=model,
                              elapsed_s=round(time.monotonic() - began, 3),
                              finished_at=datetime.now(UTC).isoformat(timespec="seconds"), **kw)

    try:
        info = cparse.find_function(target.source, target.info.language, name=target.function,
                                    line=target.info.start_line)
    except CParseError as exc:
        return result(BatchOutcome.UNSUPPORTED, exc.message)
    request = OptimizeRequest(path=target.path, text=target.source, function=target.function,
                              line=target.info.start_line, mode=item.mode, samples=options.samples,
                              model=options.model, source="batch", workspace=options.workspace,
                              max_tokens=options.max_tokens, seed=options.seed)
    finished: Finished | None = None
    try:
        events = run_optimize(request, settings, backend=backend, store=store, cancel=stop)  # type: ignore[arg-type]
        for event in events:
            if isinstance(event, Progress):
                emit(Working(item, event.message))
            elif isinstance(event, Finished):
                finished = event
    except Exception as exc:  # noqa: BLE001 - a bug in one job must not end the run
        return result(BatchOutcome.ERROR, bug_message(exc, f"optimizing {target.function}"))
    if finished is None or finished.outcome == JobOutcome.CANCELLED or stop.is_set():
        return None
    outcome = str(finished.outcome)
    if finished.outcome == JobOutcome.ERROR:
        # The verifier's refusal is about the function; anything else (the model, a bug) is the run's error.
        outcome = BatchOutcome.UNSUPPORTED if finished.summary.startswith("cannot verify") else BatchOutcome.ERROR
    found = []
    for candidate in finished.suggestions:
        extraction = extract(candidate.raw_output, info, original_source=target.source)
        v = candidate.verdict
        if extraction.candidate is None or v.speedup is None or v.ci95 is None:
            continue
        found.append(Suggestion(
            index=candidate.index, speedup=v.speedup, ci95=(v.ci95[0], v.ci95[1]), p_value=v.p_value,
            mode=item.mode, threads=v.threads, flags=list(v.flags), compiler_alone=v.compiler_alone,
            code=candidate.code, diff=candidate.diff, replacement=extraction.candidate.replacement,
            includes=list(extraction.candidate.includes), candidate_id=candidate.candidate_id,
            strategy=candidate.strategy_name or None,
        ))
    return result(outcome, finished.summary, candidates=len(finished.candidates), suggestions=found,
                  request_id=finished.request_id)
