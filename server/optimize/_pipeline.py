"""The optimize pipeline: parse → prompt → sample N → extract → verify each → rank.

:func:`run_optimize` yields events (server/events.py) so the CLI and the
language server can show progress. Sampling runs in one thread and
verification in another: a candidate is checked as soon as the model has
written it, while the model writes the next. The verifier's one-off
preparation (building the original, sizing the harness) runs while the model
reads the prompt. Setting ``cancel`` stops the model and kills compilers and
benchmark runs; the last event is always :class:`Finished`, whose
``summary`` says what was found or why nothing was.
"""
from __future__ import annotations

import dataclasses
import difflib
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from .. import cparse
from ..cparse import CParseError, FunctionInfo
from ..events import Candidate, CandidateGenerated, Event, Finished, Progress, VerdictReady
from ..records import CandidateRecord, RequestRecord
from ..settings import Settings
from ..verdict import Status, Verdict
from ._extract import Extraction, dedupe_key, extract
from ._prompts import MODES, PROMPT_VERSION, STOP, build_messages

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


class StoreLike(Protocol):
    def record_request(self, req: RequestRecord) -> str: ...

    def record_candidate(self, request_id: str, cand: CandidateRecord) -> str: ...


def unified_diff(original: str, candidate: str, name: str) -> str:
    lines = difflib.unified_diff(
        original.splitlines(keepends=True), candidate.splitlines(keepends=True),
        fromfile=f"{name} (original)", tofile=f"{name} (candidate)",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _no_code_verdict(extraction: Extraction, mode: str, threads: int) -> Verdict:
    reason = extraction.reason
    if reason.startswith("the rewrite is identical"):
        return Verdict(Status.NOT_SIGNIFICANT, detail=f"not a suggestion: {reason}", speedup=1.0,
                       threads=threads, mode=mode)
    return Verdict(Status.COMPILE_ERROR, detail=f"no usable code: {reason}", threads=threads, mode=mode)


def summarize(candidates: list[Candidate], suggestions: list[Candidate], threshold: float) -> tuple[str, str]:
    """(outcome, summary): what was found, or exactly why nothing was."""
    n = len(candidates)
    if suggestions:
        best = suggestions[0].verdict
        low, high = best.ci95 or (0.0, 0.0)
        return "found", (
            f"{len(suggestions)} of {n} candidate{'s' if n != 1 else ''} verified faster; best "
            f"{best.speedup:.2f}× (95% interval {low:.2f}–{high:.2f}×)"
        )
    if n == 0:
        return "nothing_usable", "the model produced no candidates"
    counts: dict[str, int] = {}
    for c in candidates:
        counts[c.verdict.status.value] = counts.get(c.verdict.status.value, 0) + 1
    parts = [f"{k} {v.replace('_', ' ')}" for v, k in sorted(counts.items(), key=lambda kv: -kv[1])]
    usable = [c for c in candidates if not c.verdict.detail.startswith(("no usable code", "not a suggestion"))]
    example = next((c.verdict.detail for c in candidates if c.verdict.status not in (Status.NOT_SIGNIFICANT,)), "")
    if not usable:
        first = candidates[0].verdict.detail
        return "nothing_usable", f"the model returned nothing usable in {n} samples ({first})"
    text = f"no candidate was verified faster (by more than {threshold:.2f}×): " + ", ".join(parts)
    if example:
        text += f"; e.g. {example}"
    return "none_faster", text


def run_optimize(
    request: OptimizeRequest,
    settings: Settings,
    *,
    backend: Any = None,
    store: StoreLike | None = None,
    cancel: threading.Event | None = None,
) -> Iterator[Event]:
    """Run one optimize job; yields :class:`Progress`, :class:`CandidateGenerated`,
    :class:`VerdictReady` and, last, :class:`Finished`."""
    started = time.monotonic()
    mode = request.mode
    fname = request.function or (f"line {request.line + 1}" if request.line is not None else "?")

    def finish(outcome: str, summary: str, **kw: Any) -> Finished:
        return Finished(function=kw.pop("function", fname), mode=mode, summary=summary, outcome=outcome, **kw)

    if mode not in MODES:
        yield finish("error", f"unknown mode {mode!r}; use serial or openmp")
        return
    yield Progress(0.0, "reading the function")
    try:
        text = request.text if request.text is not None else request.path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        yield finish("error", f"cannot read {request.path}: {getattr(exc, 'strerror', None) or exc}")
        return
    try:
        language = cparse.language_for(request.path)
        info = cparse.find_function(text, language, name=request.function, line=request.line)
    except CParseError as exc:
        yield finish("error", exc.message)
        return
    fname = info.name
    messages = build_messages(info, mode, settings)
    n = request.samples or settings.samples
    threads = settings.threads if mode == "openmp" else 1
    base = dict(function=info.name, start_byte=info.start_byte, end_byte=info.end_byte, original_code=info.text)

    request_id: str | None = None
    store_note = ""
    if store is not None:
        try:
            request_id = store.record_request(RequestRecord(
                file_path=_relative(request.path, request.workspace), function=info.qualified_name, mode=mode,
                language=language, original_code=info.text, context_code=info.context,
                compiler=settings.cxx if language == "cpp" else settings.cc, flags=list(settings.cflags),
                threads=threads, workspace=str(request.workspace) if request.workspace else None,
                prompt_version=PROMPT_VERSION, prompt_messages=messages, source=request.source,
            ))
        except Exception as exc:  # the log must never break a suggestion
            store = None
            store_note = f" (not logged: {_one_line(exc)})"

    job_cancel = threading.Event()
    events: queue.Queue[tuple[Any, ...]] = queue.Queue()
    owned_backend = backend is None
    from ..verify import FunctionVerifier  # noqa: PLC0415

    verifier = FunctionVerifier(text, language, info, mode=mode, settings=settings, source_path=request.path,
                                cancel=job_cancel, progress=lambda m: events.put(("verify_progress", m)))
    jobs: queue.Queue[tuple[int, str] | None] = queue.Queue()

    def verify_worker() -> None:
        try:
            failure = verifier.prepare()
        except Exception as exc:  # Cancelled, or a verifier bug: a reason, not a traceback
            events.put(("prepared", Verdict(Status.UNSUPPORTED, detail=_one_line(exc) or "cancelled")))
            return
        events.put(("prepared", failure))
        if failure is not None:
            return
        while (job := jobs.get()) is not None:
            index, code = job
            timing = backend  # loaded by the sampler before any candidate exists
            if timing is not None:
                timing.verifier_busy(True)  # sampling leaves the verifier its cores while it times
            try:
                verdict = verifier.verify(code)
            except Exception as exc:
                if job_cancel.is_set():
                    return
                verdict = Verdict(Status.CRASH, detail=f"the verifier failed: {_one_line(exc)}", threads=threads, mode=mode)
            finally:
                if timing is not None:
                    timing.verifier_busy(False)
            events.put(("verdict", index, verdict))

    model_name = request.model or settings.model
    seed = request.seed if request.seed is not None else int(time.time()) & 0x7FFFFFFF
    sampling = {"n": n, "max_tokens": request.max_tokens, "temperature": request.temperature,
                "top_p": request.top_p, "seed": seed}

    def sample_worker() -> None:
        nonlocal backend
        from ..backends import BackendError, create_backend  # noqa: PLC0415

        try:
            if backend is None:
                events.put(("progress", f"loading {model_name}" if settings.backend != "fake" else "loading replies"))
                backend = create_backend(settings, model=request.model)
            events.put(("progress", f"sampling {n} candidates"))
            backend.generate(
                messages, n, max_tokens=request.max_tokens, temperature=request.temperature,
                top_p=request.top_p, seed=seed, stop=STOP, cancel=job_cancel,
                on_sample=lambda i, raw: events.put(("sample", i, raw)),
            )
            events.put(("generated", None))
        except BackendError as exc:
            events.put(("generated", str(exc)))
        except MemoryError:
            events.put(("generated", "not enough memory to run the model; try --model qwen2.5-coder-0.5b"))
        except Exception as exc:
            events.put(("generated", f"the model backend failed: {_one_line(exc)}"))

    verify_thread = threading.Thread(target=verify_worker, name="perfalign-verify", daemon=True)
    sample_thread = threading.Thread(target=sample_worker, name="perfalign-sample", daemon=True)
    verify_thread.start()
    sample_thread.start()

    candidates: dict[int, Candidate] = {}
    waiting: dict[int, tuple[str, str, str]] = {}  # index -> (code, raw, key) of candidates queued for verify
    first_of: dict[str, int] = {}  # dedupe key -> index of the candidate verified for it
    followers: dict[int, list[int]] = {}
    verdict_of: dict[int, Verdict] = {}
    extractions: dict[int, Extraction] = {}
    prepared = False
    prepare_failure: Verdict | None = None
    generation_error: str | None = None
    generation_done = False
    samples_seen = 0
    pending: list[tuple[int, str]] = []  # extracted before prepare() finished

    def record(candidate: Candidate) -> None:
        nonlocal store, store_note
        if store is None or request_id is None:
            return
        try:
            candidate.candidate_id = store.record_candidate(request_id, CandidateRecord(
                model=model_name, code=candidate.code, verdict=candidate.verdict, raw_output=candidate.raw_output,
                adapter=getattr(getattr(backend, "model_info", None), "adapter_name", None),
                prompt_version=PROMPT_VERSION, sampling={**sampling, "index": candidate.index}, diff=candidate.diff,
            ))
        except Exception as exc:
            store = None
            store_note = f" (not logged: {_one_line(exc)})"

    def complete(index: int, verdict: Verdict) -> Iterator[Event]:
        code, raw, key = waiting.pop(index)
        cand = Candidate(index=index, code=code, diff=unified_diff(info.text, _function_part(extractions[index]), info.name),
                         verdict=verdict, raw_output=raw)
        candidates[index] = cand
        verdict_of[index] = verdict
        record(cand)
        yield VerdictReady(cand)
        for other in followers.pop(index, []):
            yield from complete_duplicate(other, index)

    def complete_duplicate(index: int, first: int) -> Iterator[Event]:
        verdict = verdict_of[first]
        same = dataclasses.replace(verdict, detail=f"{verdict.detail} (same code as candidate {first + 1})")
        code, raw, _ = waiting.pop(index)
        cand = Candidate(index=index, code=code, diff=candidates[first].diff, verdict=same, raw_output=raw)
        candidates[index] = cand
        record(cand)
        yield VerdictReady(cand)

    def progress() -> Progress:
        done = len(candidates)
        fraction = min(0.99, 0.05 + 0.45 * samples_seen / max(n, 1) + 0.5 * done / max(n, 1))
        faster = [c.verdict.speedup or 0.0 for c in candidates.values() if c.verdict.status is Status.FASTER]
        best = f"; one verified {max(faster):.2f}× faster so far" if faster else ""
        return Progress(fraction, f"{samples_seen}/{n} sampled, {done}/{n} verified{best}")

    outcome = ""
    summary = ""
    try:
        yield Progress(0.02, f"optimizing {info.name} ({mode}) with {model_name}")
        while True:
            if cancel is not None and cancel.is_set():
                job_cancel.set()
                outcome, summary = "cancelled", "cancelled"
                break
            # Every sample is queued before "generated", so once it is seen and nothing
            # waits for a verdict, the job is complete.
            if generation_done and not waiting:
                break
            if prepare_failure is not None and (generation_done or not waiting):
                break
            try:
                item = events.get(timeout=0.05)
            except queue.Empty:
                continue
            kind = item[0]
            if kind == "progress":
                yield Progress(progress().fraction, item[1])
            elif kind == "verify_progress":
                yield Progress(progress().fraction, item[1])
            elif kind == "prepared":
                prepared = True
                prepare_failure = item[1]
                if prepare_failure is not None:
                    job_cancel.set()  # nothing can be verified: stop the model
                    continue
                for index, code in pending:
                    jobs.put((index, code))
                pending.clear()
            elif kind == "generated":
                generation_done = True
                generation_error = item[1]
            elif kind == "sample":
                index, raw = item[1], item[2]
                samples_seen += 1
                extraction = extract(raw, info, original_source=text)
                extractions[index] = extraction
                if extraction.candidate is None:
                    waiting[index] = ("", raw, "")
                    yield from complete(index, _no_code_verdict(extraction, mode, threads))
                else:
                    code = extraction.candidate.code
                    key = dedupe_key(extraction.candidate)
                    waiting[index] = (code, raw, key)
                    yield CandidateGenerated(index=index, code=code)
                    if key in first_of:
                        first = first_of[key]
                        if first in verdict_of:
                            yield from complete_duplicate(index, first)
                        else:
                            followers.setdefault(first, []).append(index)
                    else:
                        first_of[key] = index
                        if prepared:
                            jobs.put((index, code))
                        else:
                            pending.append((index, code))
                yield progress()
            elif kind == "verdict":
                yield from complete(item[1], item[2])
                yield progress()
    finally:
        # Normal end: both threads are done or idle. Early end (cancel, an error, the
        # consumer stopped listening): stop the model and kill running builds and timings.
        if not (generation_done and not waiting):
            job_cancel.set()
        jobs.put(None)
        sample_thread.join(timeout=30)
        verify_thread.join(timeout=30)
        verifier.close()
        if owned_backend and backend is not None:
            try:
                backend.close()
            except Exception:
                pass

    ordered = [candidates[i] for i in sorted(candidates)]
    suggestions = sorted(
        (c for c in ordered if c.verdict.status is Status.FASTER),
        key=lambda c: (c.verdict.ci95[0] if c.verdict.ci95 else 0.0, c.verdict.speedup or 0.0),
        reverse=True,
    )
    if outcome != "cancelled":
        if prepare_failure is not None:
            outcome = "error"
            summary = f"cannot verify {info.name}: {prepare_failure.detail}"
        elif generation_error and not ordered:
            outcome, summary = "error", generation_error
        else:
            outcome, summary = summarize(ordered, suggestions, settings.threshold)
            if generation_error:
                summary += f"; sampling stopped early: {generation_error}"
    elapsed = time.monotonic() - started
    yield finish(outcome, f"{summary}{store_note} [{elapsed:.0f} s]", candidates=ordered,
                 suggestions=suggestions, request_id=request_id, **base)


def _function_part(extraction: Extraction) -> str:
    if extraction.candidate is None:
        return ""
    return extraction.candidate.replacement + "\n"


def _relative(path: Path, workspace: Path | None) -> str:
    if workspace is not None:
        try:
            return str(path.resolve().relative_to(workspace.resolve()))
        except ValueError:
            pass
    return str(path)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__


def apply_candidate(source: str, function: FunctionInfo, replacement: str, includes: list[str]) -> str:
    """``source`` with ``function``'s byte range replaced and missing includes added at the top."""
    data = source.encode()
    if data[function.start_byte : function.end_byte].decode() != function.text:
        raise ValueError(f"the file changed: {function.name} is not where it was")
    new = data[: function.start_byte] + replacement.encode() + data[function.end_byte :]
    text = new.decode()
    missing = [inc for inc in includes if inc not in text]
    if missing:
        lines = text.split("\n")
        last = max((i for i, line in enumerate(lines) if line.lstrip().startswith("#include")), default=-1)
        lines[last + 1 : last + 1] = missing
        text = "\n".join(lines)
    return text
