"""The optimize pipeline: parse → analyse → prompt → sample N → extract → verify each → rank, every step recorded.

:func:`run_optimize` yields events (``perfalign.server.events``) so the CLI and
the language server can show progress. The function is analysed first
(``analysis``): each sample's prompt asks for a different strategy the
analysis ranked, and the last stays the plain prompt. The job composes the pipeline's
stages (``_stages``): sampling runs in one thread and verification in
another, and the code the job extracts from each sample reaches the verifying
thread through a ``SampleQueue``, so a candidate is checked as soon as the
model has written it, while the model writes the next. The verifier's
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
A job whose first round found nothing is the exception: it always gets its
first feedback round (when the settings allow one), with as long again as the
first round took, past the budget if need be, since a repair is its best chance
left; the budget still decides every later round. The first round never waits for them: its suggestions are reported as
soon as they are verified.
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
from ..records import RequestRecord, with_strategy
from ..settings import Settings
from ..verdict import TIMED, Status, Verdict
from ..verify import FunctionVerifier
from . import _stages
from ._candidates import CandidateBook, Origin
from ._log import JobLog, StoreLike
from ._prompts import MODES, PROMPT_VERSION, STOP, build_messages, feedback_kind
from .analysis import Analysis, Strategy, analyse, plan_samples
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
    analysis: Analysis | None = None


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
    if settings.strategies:
        yield Progress(0.01, f"analysing {target.info.name}")
        target.analysis = analyse(target.info, target.text, mode, settings, source_path=request.path)
        for note in target.analysis.notes:
            yield Progress(0.01, note)
    job = _Job(request, settings, target, backend, store, started)
    job.start()
    try:
        plan = f"; {target.analysis.summary()}" if target.analysis is not None else ""
        yield Progress(0.02, f"optimizing {target.info.name} ({mode}) with {job.model_name}{plan}")
        yield from job.run(cancel)
    finally:
        job.stop()
    yield job.finished()


class _Job:
    """One optimize job composed of the pipeline's stages (``_stages``): the sampler's thread hands each sample to
    the job, which extracts it (``CandidateBook``) and queues new code for the verifying thread; each verdict is
    recorded, then reported; feedback rounds follow while the settings and the budget allow."""

    def __init__(self, request: OptimizeRequest, settings: Settings, target: _Target, backend: Backend | None,
                 store: StoreLike | None, started: float) -> None:
        self.settings, self.info, self.mode, self.started = settings, target.info, request.mode, started
        self.n = request.samples or settings.samples
        ranked = target.analysis.strategies if target.analysis is not None else []
        self.strategies: list[Strategy | None] = plan_samples(ranked, self.n)
        self.messages = build_messages(self.info, self.mode, settings)  # the plain prompt, logged with the request
        self.prompts = [with_strategy(self.messages, s.paragraph()) if s is not None else self.messages
                        for s in self.strategies]
        threads = settings.threads if self.mode == "openmp" else 1
        self.params = _sampling_params(request)
        self.log = JobLog(store)
        self.log.request(_request_record(request, target, settings, threads, self.messages))
        self.slot = _stages.ModelSlot(backend)
        self.model, self.model_name = request.model, request.model or settings.model
        params = self.params
        self.sampling = {"n": self.n, "max_tokens": params.max_tokens, "temperature": params.temperature,
                         "top_p": params.top_p, "seed": params.seed}
        self.rounds = Rounds(self.prompts, self.strategies, self.info, self.mode, settings, limit=self.n,
                             seed=params.seed)
        self.replies: _stages.SampleQueue[tuple[int, str]] = _stages.SampleQueue()
        self.events: queue.Queue[_stages.WorkerEvent] = queue.Queue()
        # a parallel candidate is timed on its threads' cores: the backend is told, and makes room
        guard = (lambda: _stages.timing_threads(self.slot, self.verifier.threads)) \
            if _stages.exclusive_timing(self.mode) else None
        self.verifier = FunctionVerifier(target.text, target.language, self.info, mode=self.mode, settings=settings,
                                         source_path=request.path, cancel=self.replies.cancelled,
                                         progress=lambda m: self.events.put(_stages.Note(m)), timing_guard=guard)
        self.book = CandidateBook(self.info, target.text, self.mode, threads, on_complete=self._record)
        self.samplers: list[threading.Thread] = []
        self.checker: threading.Thread | None = None
        # The first round fills the progress bar up to `first_share`; each feedback round gets a slice of the rest.
        self.first_share = 0.85 if self.rounds.allowed else 1.0
        self.current: list[FollowUp] = []  # the feedback round running now
        self.seen_before = self.done_before = 0  # samples and verdicts before it
        self.deadline = started + settings.job_budget_s  # no round starts after it
        self.round_deadline = self.deadline  # the running round stops at it (later for a round given more time)
        self.round_began = started
        self.first_verdict_s: float | None = None  # how long the current round took to its first verdict
        self.cancelled = False
        self.stopped = ""  # why a feedback round was stopped early
        self.extended = False  # the first feedback round ran past the budget (the first round found nothing)
        self.sampling_done = False
        self.sampling_error: str | None = None
        self.round_error: str | None = None
        self.prepare_failure: Verdict | None = None

    def start(self) -> None:
        """The verifying thread prepares the original while the sampling thread loads the model and samples."""
        self.checker = _stages.in_thread("perfalign-verify", _stages.verify_replies, self.verifier, self.slot,
                                         self.replies, self.events)
        self.samplers.append(_stages.in_thread("perfalign-sample", _stages.sample_replies, self.slot, self.settings,
                                               self.model, self.prompts, self.params, self.replies.cancelled,
                                               self.events))

    def _record(self, candidate: Candidate) -> None:
        followup = self.rounds.planned.get(candidate.index)
        parent = self.book.done.get(followup.parent) if followup is not None else None
        strategy = self.book.origin_of(candidate.index).strategy
        _stages.record_candidate(
            self.log, candidate, model=self.model_name, sampling=self.sampling, followup=followup,
            adapter=getattr(getattr(self.slot.backend, "model_info", None), "adapter_name", None),
            parent_id=parent.candidate_id if parent is not None else None,
            strategy_prompt=strategy.paragraph() if strategy is not None else "")

    def run(self, cancel: threading.Event | None) -> Iterator[Event]:
        """The job's loop: the workers' events in the order they come, until every round is over or the job ends."""
        while True:
            if cancel is not None and cancel.is_set():
                self.replies.cancel()
                self.cancelled = True
                return
            round_over = self.sampling_done and not self.book.waiting
            if self.current and not round_over and time.monotonic() >= self.round_deadline:
                self.stopped = (f"the feedback round stopped at the {self.settings.job_budget_s:g} s budget"
                                if not self.extended else "the feedback round stopped: it had taken as long as the "
                                                          "first round")
                return
            if self.current and len(suggestions(self.book.ordered())) >= self.settings.enough_suggestions:
                return
            # Every sample is handed over before SamplingDone, so once that is seen and
            # nothing waits for a verdict, the round is complete.
            if round_over:
                if self.prepare_failure is not None or self.sampling_error is not None or self.round_error is not None:
                    return
                self.seen_before, self.done_before = self.book.samples_seen, len(self.book.done)
                self.current = self.next_round()
                if not self.current:
                    return
                self.round_began, self.first_verdict_s = time.monotonic(), None
                self.sampling_done = False
                yield self.progress(f"round {self.rounds.number}: {describe(self.current)}")
                continue
            if self.prepare_failure is not None and (self.sampling_done or not self.book.waiting):
                return
            try:
                item = self.events.get(timeout=0.05)
            except queue.Empty:
                continue
            yield from self._handle(item)

    def _handle(self, item: _stages.WorkerEvent) -> Iterator[Event]:
        """One worker's event: a note, the verifier ready, sampling over, a sample to extract, a verdict."""
        match item:
            case _stages.Note(message):
                yield self.progress(message)
            case _stages.Prepared(failure):
                self.prepare_failure = failure
                if failure is not None:
                    self.replies.cancel()  # nothing can be verified: stop the model
            case _stages.SamplingDone(error):
                self.sampling_done = True
                if self.current:
                    self.round_error = error
                else:
                    self.sampling_error = error
            case _stages.Sampled(index, raw):
                followup = self.rounds.planned.get(index)
                origin = followup.origin if followup is not None else Origin(strategy=self.strategies[index])
                yield from self.book.add_sample(index, raw, verify=lambda i, code: self.replies.put((i, code)),
                                                origin=origin)
                yield self.progress()
            case _stages.Verified(index, verdict):
                if self.first_verdict_s is None:
                    self.first_verdict_s = time.monotonic() - self.round_began
                yield from self.book.complete(index, verdict)
                yield self.progress()

    def progress(self, message: str | None = None) -> Progress:
        book, n = self.book, self.n
        faster = [c.verdict.speedup or 0.0 for c in book.done.values() if c.verdict.status is Status.FASTER]
        best = f"; one verified {max(faster):.2f}× faster so far" if faster else ""
        if not self.current:
            done = len(book.done)
            fraction = min(0.99, self.first_share * (0.05 + 0.45 * book.samples_seen / max(n, 1)
                                                     + 0.5 * done / max(n, 1)))
            return Progress(fraction, message or f"{book.samples_seen}/{n} sampled, {done}/{n} verified{best}")
        size, seen, done = len(self.current), book.samples_seen - self.seen_before, len(book.done) - self.done_before
        width = 0.14 / max(self.rounds.allowed, 1)
        fraction = min(0.99, 0.85 + width * (self.rounds.number - 2) + width * (0.5 * seen + 0.5 * done) / size)
        return Progress(fraction, message or f"round {self.rounds.number}, {describe(self.current)}: {seen}/{size} "
                                             f"sampled, {done}/{size} verified{best}")

    def next_round(self) -> list[FollowUp]:
        """Start the next feedback round when the settings and the budget allow one and it has work."""
        rounds, book, settings = self.rounds, self.book, self.settings
        if rounds.number > rounds.allowed or len(suggestions(book.ordered())) >= settings.enough_suggestions:
            return []
        now = time.monotonic()
        left = self.deadline - now
        first_verdict_s = self.first_verdict_s
        short = left <= 0 or (first_verdict_s is not None and left < first_verdict_s)
        # nothing found yet: the first feedback round runs anyway, given as long as the first round took
        extend = short and rounds.number == 1 and not suggestions(book.ordered())
        if short and not extend:
            if any(feedback_kind(c.verdict) and c.code for c in book.of_round(rounds.number)):
                further = "further " if rounds.number > 1 else ""
                which = "the first round" if rounds.number == 1 else f"round {rounds.number}"
                self.stopped = (f"no {further}feedback round: the job had used its {settings.job_budget_s:g} s budget"
                                if left <= 0 else
                                f"no {further}feedback round: {left:.0f} s of the {settings.job_budget_s:g} s budget "
                                f"left, less than the {first_verdict_s:.0f} s {which} took to its first verdict")
            return []
        followups = rounds.plan(book.of_round(rounds.number), next_index=max(book.done, default=-1) + 1)
        if followups and extend:
            self.round_deadline = max(self.deadline, now + max(now - self.started, first_verdict_s or 0.0))
            self.extended = True
        elif followups:
            self.round_deadline = self.deadline
        if followups:
            turns = [(f.index, f.turn.messages, f.seed) for f in followups]
            self.samplers.append(_stages.in_thread("perfalign-sample", _stages.sample_turns, self.slot, turns,
                                                   self.params, self.replies.cancelled, self.events))
        return followups

    def stop(self) -> None:
        """Normal end: both threads are done or idle. Early end (cancel, an error, the consumer stopped
        listening): stop the model and kill running builds and timings."""
        if not (self.sampling_done and not self.book.waiting):
            self.replies.cancel()
        self.replies.close()
        for thread in self.samplers:
            thread.join(timeout=30)
        if self.checker is not None:
            self.checker.join(timeout=30)
        self.verifier.close()
        self.slot.close()

    def finished(self) -> Finished:
        """The job's last event: what was found, or why nothing was."""
        info, settings = self.info, self.settings
        candidates = self.book.ordered()
        found = suggestions(candidates)
        stopped = self.stopped
        if self.cancelled:
            outcome, summary = Outcome.CANCELLED, "cancelled"
        elif self.prepare_failure is not None:
            outcome, summary = Outcome.ERROR, f"cannot verify {info.name}: {self.prepare_failure.detail}"
        elif self.sampling_error and not candidates:
            outcome, summary = Outcome.ERROR, self.sampling_error
        else:
            outcome, summary = summarize(candidates, found, settings.threshold)
            if self.sampling_error:
                summary += f"; sampling stopped early: {self.sampling_error}"
            if self.round_error and not stopped:
                stopped = f"sampling stopped early: {self.round_error}"
            summary += _rounds_note(candidates, stopped)
        elapsed = time.monotonic() - self.started
        if self.extended and elapsed > settings.job_budget_s and outcome not in (Outcome.CANCELLED, Outcome.ERROR):
            summary += (f"; the first round found nothing, so its feedback round ran past the "
                        f"{settings.job_budget_s:g} s budget")
        return Finished(function=info.name, mode=self.mode, summary=f"{summary}{self.log.note} [{elapsed:.0f} s]",
                        outcome=outcome, candidates=candidates, suggestions=found, request_id=self.log.request_id,
                        start_byte=info.start_byte, end_byte=info.end_byte, original_code=info.text)


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
