"""The optimize pipeline: parse → prompt → sample N → extract → verify each → rank, with every step recorded.

:func:`run_optimize` yields events (``perfalign.server.events``) so the CLI and
the language server can show progress. Sampling runs in one thread and
verification in another (``_workers``): a candidate is checked as soon as
the model has written it, while the model writes the next. The verifier's
one-off preparation (building the original, sizing the harness) runs while
the model reads the prompt. Setting ``cancel`` stops the model and kills
compilers and benchmark runs; the last event is always :class:`Finished`,
whose ``summary`` says what was found or why nothing was.

After the first round, feedback rounds (``_rounds``) show the model what the
verifier found about its candidates and verify its answers like any candidate,
while the job's budget (``job_budget_s``) allows and until enough verified
suggestions (``enough_suggestions``) exist. A round starts only when the budget
left is at least the time the round before it took to its first verdict: the
least a round of the same model on the same function can be expected to take.
The first round never waits for them: its suggestions are reported as soon as
they are verified.
"""
from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .. import cparse
from ..backends import Backend, SamplingParams
from ..cparse import FunctionInfo
from ..errors import CParseError
from ..events import Candidate, Event, Finished, Outcome, Progress
from ..records import CandidateRecord, RequestRecord
from ..settings import Settings
from ..verdict import TIMED, Status, Verdict
from ..verify import FunctionVerifier
from . import _workers
from ._candidates import FIRST, CandidateBook
from ._log import JobLog, StoreLike
from ._prompts import FEEDBACK_PROMPT_VERSION, MODES, PROMPT_VERSION, STOP, build_messages, feedback_kind
from ._rounds import FollowUp, Rounds, describe
from ._ranking import suggestions, summarize

DEFAULT_MAX_TOKENS = 768
DEFAULT_TEMPERATURE = 0.7
DEFAULT_TOP_P = 0.95


@dataclass
class OptimizeRequest:
    path: Path
    text: str | None = None  # an editor buffer overrides the file
    function: str | None = None
    line: int | None = None  # 0-based
    mode: str = "serial"  # "serial" | "openmp"
    samples: int | None = None  # default: settings.samples
    model: str | None = None  # default: settings.model
    source: str = "cli"
    workspace: Path | None = None
    max_tokens: int = DEFAULT_MAX_TOKENS
    temperature: float = DEFAULT_TEMPERATURE
    top_p: float = DEFAULT_TOP_P
    seed: int | None = None  # default: from the clock


class _Refused(Exception):
    """The job cannot start; the message is its summary."""


@dataclass
class _Target:
    """The parse stage's result: the file's text and the function, analysed."""

    text: str
    language: str
    info: FunctionInfo


def run_optimize(
    request: OptimizeRequest,
    settings: Settings,
    *,
    backend: Backend | None = None,
    store: StoreLike | None = None,
    cancel: threading.Event | None = None,
) -> Iterator[Event]:
    """Run one optimize job; yields :class:`Progress`, :class:`CandidateGenerated`,
    :class:`VerdictReady` and, last, :class:`Finished`."""
    started = time.monotonic()
    mode = request.mode
    name = request.function or (f"line {request.line + 1}" if request.line is not None else "?")
    if mode not in MODES:
        yield Finished(function=name, mode=mode, summary=f"unknown mode {mode!r}; use serial or openmp",
                       outcome=Outcome.ERROR)
        return
    yield Progress(0.0, "reading the function")
    try:
        target = _parse(request)
    except _Refused as refusal:
        yield Finished(function=name, mode=mode, summary=str(refusal), outcome=Outcome.ERROR)
        return
    info = target.info
    messages = build_messages(info, mode, settings)
    n = request.samples or settings.samples
    threads = settings.threads if mode == "openmp" else 1
    params = _sampling_params(request)
    log = JobLog(store)
    log.request(_request_record(request, target, settings, threads, messages))
    slot = _workers.ModelSlot(backend)
    model_name = request.model or settings.model
    sampling = {"n": n, "max_tokens": params.max_tokens, "temperature": params.temperature,
                "top_p": params.top_p, "seed": params.seed}

    rounds = Rounds(messages, info, mode, settings, limit=n, seed=params.seed)

    def record(candidate: Candidate) -> None:
        adapter = getattr(getattr(slot.backend, "model_info", None), "adapter_name", None)
        followup = rounds.planned.get(candidate.index)
        if followup is None:
            extra: dict[str, object] = {"prompt_version": PROMPT_VERSION,
                                        "sampling": {**sampling, "index": candidate.index}}
        else:
            parent = book.done.get(followup.parent)
            extra = {"prompt_version": FEEDBACK_PROMPT_VERSION,
                     "sampling": {**sampling, "n": 1, "seed": followup.seed, "index": candidate.index,
                                  "round": followup.round},
                     "round": followup.round, "parent_id": parent.candidate_id if parent is not None else None,
                     "round_kind": followup.turn.kind, "round_feedback": followup.turn.text}
        candidate.candidate_id = log.candidate(CandidateRecord(
            model=model_name, code=candidate.code, verdict=candidate.verdict, raw_output=candidate.raw_output,
            adapter=adapter, diff=candidate.diff, **extra,  # type: ignore[arg-type]
        ))

    job_cancel = threading.Event()
    events: queue.Queue[_workers.WorkerEvent] = queue.Queue()
    jobs: queue.Queue[tuple[int, str] | None] = queue.Queue()
    # a parallel candidate is timed on its threads' cores: the backend is told, and makes room
    parallel_timing = (lambda: _workers.timing_threads(slot, verifier.threads)) if mode == "openmp" else None
    verifier = FunctionVerifier(target.text, target.language, info, mode=mode, settings=settings,
                                source_path=request.path, cancel=job_cancel,
                                progress=lambda m: events.put(_workers.Note(m)), timing_guard=parallel_timing)
    book = CandidateBook(info, target.text, mode, threads, on_complete=record)
    sampler = threading.Thread(target=_workers.sample, name="perfalign-sample", daemon=True,
                               args=(slot, settings, request.model, messages, n, params, job_cancel, events))
    checker = threading.Thread(target=_workers.verify, name="perfalign-verify", daemon=True,
                               args=(verifier, slot, jobs, job_cancel, events))
    samplers = [sampler]
    checker.start()
    sampler.start()
    # The first round fills the progress bar up to `first_share`; each feedback round gets a slice of the rest.
    first_share = 0.85 if rounds.allowed else 1.0
    current: list[FollowUp] = []  # the feedback round running now
    seen_before = done_before = 0  # samples and verdicts before it

    def progress(message: str | None = None) -> Progress:
        faster = [c.verdict.speedup or 0.0 for c in book.done.values() if c.verdict.status is Status.FASTER]
        best = f"; one verified {max(faster):.2f}× faster so far" if faster else ""
        if not current:
            done = len(book.done)
            fraction = min(0.99, first_share * (0.05 + 0.45 * book.samples_seen / max(n, 1) + 0.5 * done / max(n, 1)))
            return Progress(fraction, message or f"{book.samples_seen}/{n} sampled, {done}/{n} verified{best}")
        size, seen, done = len(current), book.samples_seen - seen_before, len(book.done) - done_before
        width = 0.14 / max(rounds.allowed, 1)
        fraction = min(0.99, 0.85 + width * (rounds.number - 2) + width * (0.5 * seen + 0.5 * done) / size)
        return Progress(fraction, message or f"round {rounds.number}, {describe(current)}: {seen}/{size} sampled, "
                                             f"{done}/{size} verified{best}")

    def next_round() -> list[FollowUp]:
        """Start the next feedback round when the settings and the budget allow one and it has work."""
        nonlocal stopped
        if rounds.number > rounds.allowed or len(suggestions(book.ordered())) >= settings.enough_suggestions:
            return []
        left = deadline - time.monotonic()
        if left <= 0 or (first_verdict_s is not None and left < first_verdict_s):
            if any(feedback_kind(c.verdict) and c.code for c in book.of_round(rounds.number)):
                further = "further " if rounds.number > 1 else ""
                which = "the first round" if rounds.number == 1 else f"round {rounds.number}"
                stopped = (f"no {further}feedback round: the job had used its {settings.job_budget_s:g} s budget"
                           if left <= 0 else
                           f"no {further}feedback round: {left:.0f} s of the {settings.job_budget_s:g} s budget "
                           f"left, less than the {first_verdict_s:.0f} s {which} took to its first verdict")
            return []
        followups = rounds.plan(book.of_round(rounds.number), next_index=max(book.done, default=-1) + 1)
        if followups:
            turns = [(f.index, f.turn.messages, f.seed) for f in followups]
            thread = threading.Thread(target=_workers.sample_turns, name="perfalign-sample", daemon=True,
                                      args=(slot, turns, params, job_cancel, events))
            samplers.append(thread)
            thread.start()
        return followups

    deadline = started + settings.job_budget_s
    round_began = started
    first_verdict_s: float | None = None  # how long the current round took to its first verdict
    cancelled = False
    stopped = ""  # why a feedback round was stopped early
    sampling_done = False
    sampling_error: str | None = None
    round_error: str | None = None
    prepare_failure: Verdict | None = None
    try:
        yield Progress(0.02, f"optimizing {info.name} ({mode}) with {model_name}")
        while True:
            if cancel is not None and cancel.is_set():
                job_cancel.set()
                cancelled = True
                break
            round_over = sampling_done and not book.waiting
            if current and not round_over and time.monotonic() >= deadline:
                stopped = f"the feedback round stopped at the {settings.job_budget_s:g} s budget"
                break
            if current and len(suggestions(book.ordered())) >= settings.enough_suggestions:
                break
            # Every sample is handed over before SamplingDone, so once that is seen and
            # nothing waits for a verdict, the round is complete.
            if round_over:
                if prepare_failure is not None or sampling_error is not None or round_error is not None:
                    break
                seen_before, done_before = book.samples_seen, len(book.done)
                current = next_round()
                if not current:
                    break
                round_began, first_verdict_s = time.monotonic(), None
                sampling_done = False
                yield progress(f"round {rounds.number}: {describe(current)}")
                continue
            if prepare_failure is not None and (sampling_done or not book.waiting):
                break
            try:
                item = events.get(timeout=0.05)
            except queue.Empty:
                continue
            match item:
                case _workers.Note(message):
                    yield progress(message)
                case _workers.Prepared(failure):
                    prepare_failure = failure
                    if failure is not None:
                        job_cancel.set()  # nothing can be verified: stop the model
                case _workers.SamplingDone(error):
                    sampling_done = True
                    if current:
                        round_error = error
                    else:
                        sampling_error = error
                case _workers.Sampled(index, raw):
                    followup = rounds.planned.get(index)
                    origin = followup.origin if followup is not None else FIRST
                    yield from book.add_sample(index, raw, verify=lambda i, code: jobs.put((i, code)), origin=origin)
                    yield progress()
                case _workers.Verified(index, verdict):
                    if first_verdict_s is None:
                        first_verdict_s = time.monotonic() - round_began
                    yield from book.complete(index, verdict)
                    yield progress()
    finally:
        # Normal end: both threads are done or idle. Early end (cancel, an error, the
        # consumer stopped listening): stop the model and kill running builds and timings.
        if not (sampling_done and not book.waiting):
            job_cancel.set()
        jobs.put(None)
        for thread in samplers:
            thread.join(timeout=30)
        checker.join(timeout=30)
        verifier.close()
        slot.close()

    candidates = book.ordered()
    found = suggestions(candidates)
    if cancelled:
        outcome, summary = Outcome.CANCELLED, "cancelled"
    elif prepare_failure is not None:
        outcome, summary = Outcome.ERROR, f"cannot verify {info.name}: {prepare_failure.detail}"
    elif sampling_error and not candidates:
        outcome, summary = Outcome.ERROR, sampling_error
    else:
        outcome, summary = summarize(candidates, found, settings.threshold)
        if sampling_error:
            summary += f"; sampling stopped early: {sampling_error}"
        if round_error and not stopped:
            stopped = f"sampling stopped early: {round_error}"
        summary += _rounds_note(candidates, stopped)
    elapsed = time.monotonic() - started
    yield Finished(function=info.name, mode=mode, summary=f"{summary}{log.note} [{elapsed:.0f} s]", outcome=outcome,
                   candidates=candidates, suggestions=found, request_id=log.request_id, start_byte=info.start_byte,
                   end_byte=info.end_byte, original_code=info.text)


def _rounds_note(candidates: list[Candidate], stopped: str) -> str:
    """``; 3 candidates from feedback rounds (1 repaired, 1 verified faster)``, or nothing when none ran."""
    later = [c for c in candidates if c.round > 1]
    if not later:
        return f"; {stopped}" if stopped else ""
    repaired = sum(c.feedback == "repair" and c.verdict.status in TIMED for c in later)
    faster = sum(c.verdict.status is Status.FASTER for c in later)
    rounds = max(c.round for c in later) - 1
    note = (f"; {len(later)} candidate{'s' if len(later) != 1 else ''} from {rounds} feedback "
            f"round{'s' if rounds != 1 else ''} ({repaired} repaired, {faster} verified faster)")
    return note + (f"; {stopped}" if stopped else "")


def _parse(request: OptimizeRequest) -> _Target:
    """The parse stage: the file (or the editor's buffer) and the function in it."""
    try:
        text = request.text if request.text is not None else request.path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _Refused(f"cannot read {request.path}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        language = cparse.language_for(request.path)
        info = cparse.find_function(text, language, name=request.function, line=request.line)
    except CParseError as exc:
        raise _Refused(exc.message) from None
    return _Target(text, language, info)


def _sampling_params(request: OptimizeRequest) -> SamplingParams:
    seed = request.seed if request.seed is not None else int(time.time()) & 0x7FFFFFFF
    return SamplingParams(max_tokens=request.max_tokens, temperature=request.temperature, top_p=request.top_p,
                          seed=seed, stop=tuple(STOP))


def _request_record(request: OptimizeRequest, target: _Target, settings: Settings, threads: int,
                    messages: list[dict[str, str]]) -> RequestRecord:
    info, language = target.info, target.language
    return RequestRecord(
        file_path=_relative(request.path, request.workspace), function=info.qualified_name, mode=request.mode,
        language=language, original_code=info.text, context_code=info.context,
        compiler=settings.cxx if language == "cpp" else settings.cc, flags=list(settings.cflags),
        threads=threads, workspace=str(request.workspace) if request.workspace else None,
        prompt_version=PROMPT_VERSION, prompt_messages=messages, source=request.source,
    )


def _relative(path: Path, workspace: Path | None) -> str:
    if workspace is not None:
        try:
            return str(path.resolve().relative_to(workspace.resolve()))
        except ValueError:
            pass
    return str(path)
