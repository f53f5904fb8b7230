"""The sample and verify stages, each in a thread of its own, talking to the job through one queue.

The sampler loads the model (unless the caller lent one) and hands over each
sample as soon as it is complete; the verifier prepares the original once,
then verifies the candidates it is given, in order, while the model writes
the next. Neither raises: a failure reaches the job as an event.
"""
from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from ..backends import Backend, BackendError, SamplingParams, create_backend
from ..errors import bug_message
from ..settings import Settings
from ..verdict import Status, Verdict
from ..verify import FunctionVerifier


@dataclass
class Note:
    """A progress message from a worker."""

    message: str


@dataclass
class Prepared:
    """The verifier is ready (``failure`` None) or cannot verify this function (why)."""

    failure: Verdict | None


@dataclass
class Sampled:
    index: int
    raw: str


@dataclass
class SamplingDone:
    """Every sample was handed over (``error`` None), or sampling stopped early (why)."""

    error: str | None


@dataclass
class Verified:
    index: int
    verdict: Verdict


WorkerEvent = Note | Prepared | Sampled | SamplingDone | Verified


@dataclass
class ModelSlot:
    """The backend a job samples from: lent by the caller, or loaded by the sampler and closed at the end."""

    backend: Backend | None

    def __post_init__(self) -> None:
        self.owned = self.backend is None

    def close(self) -> None:
        if self.owned and self.backend is not None:
            try:
                self.backend.close()
            except Exception:  # noqa: BLE001 - closing must not hide the job's result
                pass


def sample(slot: ModelSlot, settings: Settings, model: str | None, messages: list[dict[str, str]], n: int,
           params: SamplingParams, cancel: threading.Event, events: queue.Queue[WorkerEvent]) -> None:
    """Load the model when the slot is empty, then sample ``n`` candidates; ends with :class:`SamplingDone`."""

    def work() -> None:
        if slot.backend is None:
            name = model or settings.model
            events.put(Note(f"loading {name}" if settings.backend != "fake" else "loading replies"))
            slot.backend = create_backend(settings, model=model)
        events.put(Note(f"sampling {n} candidates"))
        slot.backend.generate(messages, n, params, cancel=cancel,
                              on_sample=lambda i, raw: events.put(Sampled(i, raw)))

    _until_done(work, events)


def _until_done(work: Callable[[], None], events: queue.Queue[WorkerEvent]) -> None:
    """Run ``work``, then put :class:`SamplingDone` with None or what stopped it, in words."""
    try:
        work()
        events.put(SamplingDone(None))
    except BackendError as exc:
        events.put(SamplingDone(str(exc)))
    except MemoryError:
        events.put(SamplingDone("not enough memory to run the model; try --model qwen2.5-coder-0.5b"))
    except Exception as exc:  # noqa: BLE001 - a bug in a backend is reported as one
        events.put(SamplingDone(f"the model backend failed: {bug_message(exc, 'sampling')}"))


def sample_turns(slot: ModelSlot, turns: list[tuple[int, list[dict[str, str]], int]], params: SamplingParams,
                 cancel: threading.Event, events: queue.Queue[WorkerEvent]) -> None:
    """A feedback round: one sample for each ``(index, messages, seed)``, together where the backend batches;
    ends with :class:`SamplingDone`."""

    def work() -> None:
        backend = slot.backend
        if backend is None:
            raise BackendError("no model is loaded")
        indexes = [index for index, _, _ in turns]
        backend.generate_turns([messages for _, messages, _ in turns], params, [seed for _, _, seed in turns],
                               cancel=cancel, on_sample=lambda i, raw: events.put(Sampled(indexes[i], raw)))

    _until_done(work, events)


def verify(verifier: FunctionVerifier, slot: ModelSlot, jobs: queue.Queue[tuple[int, str] | None],
           cancel: threading.Event, events: queue.Queue[WorkerEvent]) -> None:
    """Prepare the original, then verify each queued candidate until ``None`` is queued."""
    try:
        failure = verifier.prepare()
    except Exception as exc:  # noqa: BLE001 - Cancelled, or a bug: a reason, not a traceback
        if cancel.is_set():
            events.put(Prepared(Verdict(Status.UNSUPPORTED, detail="cancelled")))
        else:
            events.put(Prepared(Verdict(Status.UNSUPPORTED, detail=bug_message(exc, "preparing the original"))))
        return
    events.put(Prepared(failure))
    if failure is not None:
        return
    while (job := jobs.get()) is not None:
        index, code = job
        backend = slot.backend  # loaded by the sampler before any candidate exists
        if backend is not None:
            backend.verifier_busy(True)  # sampling leaves the verifier its cores while it times
        try:
            verdict = verifier.verify(code)
        except Exception as exc:  # noqa: BLE001 - Cancelled ends the job; anything else is perfalign's bug
            if cancel.is_set():
                return
            verdict = Verdict(Status.UNSUPPORTED, detail=bug_message(exc, "verifying a candidate"),
                              threads=verifier.threads, mode=verifier.mode)
        finally:
            if backend is not None:
                backend.verifier_busy(False)
        events.put(Verified(index, verdict))


@contextmanager
def timing_threads(slot: ModelSlot, threads: int) -> Iterator[None]:
    """While a parallel candidate is timed: the backend knows it runs ``threads`` threads (and may stop sampling)."""
    backend = slot.backend
    if backend is None:
        yield
        return
    backend.verifier_busy(True, threads=threads)
    try:
        yield
    finally:
        backend.verifier_busy(False, threads=threads)
