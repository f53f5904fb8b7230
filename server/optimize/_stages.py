"""The pipeline's stages, sample → extract → verify → record, and the queue between sampling and verification.

``run_optimize``, self-play and the evaluation compose these functions; none
re-implements one. What the sampling side has sampled reaches the verifying
side through a :class:`SampleQueue`: a closable queue that one verifying
thread drains, carrying the job's cancellation.

* sample: :func:`sample_replies` and :func:`sample_turns` run an optimize job's model
  in a thread of its own and hand over each sample as soon as it is complete
  (self-play and the evaluation sample a whole function at once, from their
  own samplers);
* extract: :func:`~._extract.extract` finds the candidate in a reply,
  :func:`extract_candidate` gives its code or says why there is none;
* verify: :class:`FunctionVerdicts` prepares a function's original once and
  judges its candidates; :func:`verify_replies` (an optimize job's verifying thread)
  and :class:`Verifying` (self-play's and the evaluation's) drain a
  :class:`SampleQueue`; :func:`exclusive_timing` is the timing guard: an
  OpenMP candidate is timed with nothing sampled meanwhile;
* record: :func:`record_candidate` puts an optimize job's candidate in the
  store (:class:`~._log.JobLog`), :func:`record_rows` appends self-play's and
  the evaluation's rows to their files.

The workers never raise: a failure reaches the job as an event or a verdict.
"""
from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TextIO, TypeVar

from ..backends import Backend, BackendError, SamplingParams, create_backend
from ..cparse import FunctionInfo
from ..errors import bug_message
from ..events import Candidate
from ..records import CandidateRecord
from ..settings import Settings
from ..verdict import Status, Verdict
from ..verify import FunctionVerifier
from ._extract import extract
from ._log import JobLog
from ._prompts import FEEDBACK_PROMPT_VERSION, PROMPT_VERSION

if TYPE_CHECKING:
    from ._rounds import FollowUp

T = TypeVar("T")


# --- the queue between sampling and verification ------------------------------------------------------


class _Closed:
    """The mark a closed queue ends with."""


_CLOSED = _Closed()


class SampleQueue(Generic[T]):
    """What was sampled, on its way to the verifying side: put by the sampling side, drained by one verifying thread.

    :meth:`close` says nothing more comes: the verifying side ends once it has
    drained what is queued. :meth:`cancel` stops the job: the verifying side
    ends before its next item, and ``cancelled`` (the event the job's model,
    compilers and benchmark runs watch) is set.
    """

    def __init__(self, cancel: threading.Event | None = None) -> None:
        self.cancelled = cancel if cancel is not None else threading.Event()
        self._items: queue.Queue[T | _Closed] = queue.Queue()

    def put(self, item: T) -> None:
        self._items.put(item)

    def close(self) -> None:
        self._items.put(_CLOSED)

    def cancel(self) -> None:
        self.cancelled.set()

    def __iter__(self) -> Iterator[T]:
        """The queued items in order, waiting for each, until the queue is closed or the job cancelled."""
        while not self.cancelled.is_set():
            item = self._items.get()
            if isinstance(item, _Closed):
                return
            yield item

    def drop(self) -> list[T]:
        """Empty the queue now: what was never drained."""
        dropped: list[T] = []
        while True:
            try:
                item = self._items.get_nowait()
            except queue.Empty:
                return dropped
            if not isinstance(item, _Closed):
                dropped.append(item)


# --- an optimize job's workers and what they tell it --------------------------------------------------


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


def in_thread(name: str, stage: Callable[..., None], *args: object) -> threading.Thread:
    """Start a stage (:func:`sample_replies`, :func:`sample_turns`, :func:`verify_replies`) in a thread of its own."""
    thread = threading.Thread(target=stage, name=name, daemon=True, args=args)
    thread.start()
    return thread


# --- sample -------------------------------------------------------------------------------------------


def sample_replies(slot: ModelSlot, settings: Settings, model: str | None, prompts: list[list[dict[str, str]]],
                   params: SamplingParams, cancel: threading.Event, events: queue.Queue[WorkerEvent]) -> None:
    """Load the model when the slot is empty, then sample one candidate for each prompt (sample ``i`` drawn with
    seed ``params.seed + i``, the same prompt ``n`` times as one request); ends with :class:`SamplingDone`."""

    def work() -> None:
        if slot.backend is None:
            name = model or settings.model
            events.put(Note(f"loading {name}" if settings.backend != "fake" else "loading replies"))
            slot.backend = create_backend(settings, model=model)
        n = len(prompts)
        events.put(Note(f"sampling {n} candidates"))

        def on_sample(index: int, raw: str) -> None:
            events.put(Sampled(index, raw))

        if all(p == prompts[0] for p in prompts):
            slot.backend.generate(prompts[0], n, params, cancel=cancel, on_sample=on_sample)
        else:
            slot.backend.generate_turns(prompts, params, [params.seed + i for i in range(n)], cancel=cancel,
                                        on_sample=on_sample)

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


# --- extract ------------------------------------------------------------------------------------------


def extract_candidate(raw: str, info: FunctionInfo, source: str = "") -> tuple[str, str]:
    """(code, "") for a reply with a candidate; ("", why not) otherwise, e.g. the original returned unchanged."""
    extraction = extract(raw, info, original_source=source)
    if extraction.candidate is not None:
        return extraction.candidate.code, ""
    return "", extraction.reason or "no C or C++ function in the completion"


# --- verify -------------------------------------------------------------------------------------------


def exclusive_timing(mode: str) -> bool:
    """The timing guard: whether a function's candidates must be verified with nothing sampled meanwhile, and one
    at a time.

    An OpenMP candidate is timed on ``threads`` threads and charged its whole wall time; sampling on the same
    cores took them away and made correct parallel rewrites (the references too) come out about 1.45x slower than
    the serial original. A serial candidate is charged only the time it ran, so sampling may overlap its
    verification.
    """
    return mode == "openmp"


def verify_replies(verifier: FunctionVerifier, slot: ModelSlot, replies: SampleQueue[tuple[int, str]],
                   events: queue.Queue[WorkerEvent]) -> None:
    """An optimize job's verifying side: prepare the original, then verify each ``(index, code)`` drained from
    ``replies`` until it is closed."""
    cancel = replies.cancelled
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
    for index, code in replies:
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


class FunctionVerdicts:
    """One function's prepared verifier, kept open while its candidates come in (self-play's samples, then the
    answers to their feedback turns), all judged against the same prepared original: one calibration, one problem
    size. The original is prepared with the first candidates; ``no_code(reason)`` is the verdict on a reply that
    gave no code."""

    def __init__(self, source: str, language: str, function: str, mode: str, settings: Settings, *,
                 source_path: Path | None, workers: int, no_code: Callable[[str], Verdict]) -> None:
        self.source, self.language, self.function, self.mode = source, language, function, mode
        self.settings, self.source_path, self.workers, self.no_code = settings, source_path, workers, no_code
        self._verifier: FunctionVerifier | None = None
        self._failure: Verdict | None = None

    def verify(self, codes: list[str], reasons: list[str]) -> list[Verdict] | Verdict:
        """Verdicts for ``codes``, or the failure that stops the original being harnessed. ``reasons`` says why an
        empty code has none (the extractor's words, e.g. the original returned unchanged)."""
        if self._verifier is None and self._failure is None:
            verifier = FunctionVerifier(self.source, self.language, self.function, mode=self.mode,
                                        settings=self.settings, source_path=self.source_path)
            self._failure = verifier.prepare()
            if self._failure is None:
                self._verifier = verifier
            else:
                verifier.close()
        prepared = self._verifier
        if prepared is None:
            assert self._failure is not None
            return self._failure

        def one(code: str, reason: str) -> Verdict:
            if not code.strip():
                return self.no_code(reason)
            return prepared.verify(code)

        # Candidates timed on every thread one at a time: two at once would take each other's cores.
        with ThreadPoolExecutor(max_workers=1 if exclusive_timing(self.mode) else max(1, self.workers)) as pool:
            return list(pool.map(one, codes, reasons))

    def close(self) -> None:
        if self._verifier is not None:
            self._verifier.close()
            self._verifier = None


@dataclass
class _Batch:
    """One function's candidates in the queue, and their verdicts to come."""

    verdicts: FunctionVerdicts
    codes: list[str]
    reasons: list[str]
    result: Future[list[Verdict] | Verdict]
    last: bool  # the function's last candidates: its verifier is closed once they are judged


class Verifying:
    """The verifying side of self-play and the evaluation: one thread draining a :class:`SampleQueue` of functions'
    candidates in the order they were sampled, each judged by its function's :class:`FunctionVerdicts`, while the
    sampling side samples the next function."""

    def __init__(self, name: str) -> None:
        self.queue: SampleQueue[_Batch] = SampleQueue()
        self._thread = threading.Thread(target=self._drain, name=name, daemon=True)
        self._thread.start()

    def submit(self, verdicts: FunctionVerdicts, codes: list[str], reasons: list[str], *, last: bool = False
               ) -> Future[list[Verdict] | Verdict]:
        """Queue a function's candidates; the future holds their verdicts (or the original's failure). With
        ``last``, the function's verifier is closed once they are judged; else its owner closes it."""
        result: Future[list[Verdict] | Verdict] = Future()
        self.queue.put(_Batch(verdicts, codes, reasons, result, last))
        return result

    def _drain(self) -> None:
        for batch in self.queue:
            if not batch.result.set_running_or_notify_cancel():
                continue
            try:
                batch.result.set_result(batch.verdicts.verify(batch.codes, batch.reasons))
            except BaseException as exc:  # noqa: BLE001 - it reaches whoever waits for the verdicts
                batch.result.set_exception(exc)
            finally:
                if batch.last:
                    batch.verdicts.close()

    def close(self) -> None:
        """Finish the function being verified, drop the ones not started (their futures cancelled), end the thread."""
        self.queue.cancel()
        self.queue.close()
        self._thread.join()
        for batch in self.queue.drop():
            batch.result.cancel()


# --- record -------------------------------------------------------------------------------------------


def record_candidate(log: JobLog, candidate: Candidate, *, model: str, adapter: str | None,
                     sampling: dict[str, object], followup: FollowUp | None, parent_id: str | None,
                     strategy_prompt: str = "") -> None:
    """The record stage of an optimize job: a completed candidate, with the prompt and sampling that made it, goes
    to the store; its id there (None when it was not logged) is set on it. ``strategy_prompt`` is the paragraph of
    the candidate's strategy that followed the request's prompt."""
    if followup is None:
        extra: dict[str, object] = {"prompt_version": PROMPT_VERSION,
                                    "sampling": {**sampling, "index": candidate.index}}
    else:
        extra = {"prompt_version": FEEDBACK_PROMPT_VERSION,
                 "sampling": {**sampling, "n": 1, "seed": followup.seed, "index": candidate.index,
                              "round": followup.round},
                 "round": followup.round, "parent_id": parent_id,
                 "round_kind": followup.turn.kind, "round_feedback": followup.turn.text}
    candidate.candidate_id = log.candidate(CandidateRecord(
        model=model, code=candidate.code, verdict=candidate.verdict, raw_output=candidate.raw_output,
        adapter=adapter, diff=candidate.diff, strategy=candidate.strategy, strategy_prompt=strategy_prompt,
        **extra,  # type: ignore[arg-type]
    ))


def record_rows(handle: TextIO, rows: Iterable[dict[str, object]]) -> int:
    """The record stage of self-play and the evaluation: rows appended to a JSONL file, one a line with sorted keys,
    and flushed, so a run stopped later keeps them; how many were written."""
    count = 0
    for row in rows:
        handle.write(json.dumps(row, sort_keys=True) + "\n")
        count += 1
    handle.flush()
    return count
