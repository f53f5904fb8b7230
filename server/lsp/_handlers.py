"""The perfalign language server.

"Optimize this function" and "Parallelize with OpenMP" are offered on the C or
C++ function under the cursor from the parse alone. Invoking one starts a job
(``lsp_jobs``) that runs the optimize pipeline in a worker thread; its events
come back to the event loop as ``$/progress``. When it ends, its verified
suggestions become code actions on that function and an information
diagnostic says what was found or why nothing was. What the user does with each
suggestion is logged to the preference store (``lsp_feedback``).

State lives on :class:`~perfalign.server.lsp_server.PerfalignServer`;
handlers are the module functions here. No handler raises: a failure becomes
a message in the editor and a line in the server log.
"""
from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import os
import secrets
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote

from lsprotocol import types
from pygls.uris import to_fs_path

from .. import llama_lib
from ..diffs import unified_diff
from ..errors import PerfalignError, one_line
from ..evidence import scaling_summary, scaling_svg
from ..events import Finished, Outcome, Progress, VerdictReady
from ..paths import home_dir
from ._config import editor_section
from ._feedback import State, Suggestion
from ._jobs import Job, JobState
from ._state import (
    CMD_APPLY,
    CMD_CANCEL,
    CMD_OPTIMIZE,
    CMD_PARALLELIZE,
    CMD_REJECT,
    CMD_REPORT,
    CMD_SHOW_DIFF,
    FILE_PROBLEMS,
    KIND_OPENMP,
    KIND_OPTIMIZE,
    MODE_KIND,
    MODE_TITLE,
    MODE_VERB,
    NOTIFY_JOB_FINISHED,
    NOTIFY_SHOW_DIFF,
    SOURCE,
    DocView,
    FunctionResult,
    Offer,
    PendingJob,
    PerfalignServer,
    Refusal,
    Span,
    apply_title,
    found_summary,
    function_name,
    log_path,
    suggestion_label,
)
from ._text import same_code, split_candidate

logger = logging.getLogger("perfalign.lsp")

server = PerfalignServer()

F = TypeVar("F", bound=Callable[..., Any])


def guarded(default: Any = None) -> Callable[[F], F]:
    """Turn an exception in a handler into a message and ``default``: the server keeps serving."""

    def decorate(fn: F) -> F:
        def report(ls: PerfalignServer, exc: Exception) -> Any:
            if isinstance(exc, Refusal):
                ls.tell(exc.message, types.MessageType.Warning)
                return {"status": exc.status, "message": exc.message} if default is _RESULT else default
            logger.error("%s failed", fn.__name__, exc_info=True)
            ls.tell(f"internal error in {fn.__name__}: {one_line(exc)} (details in {log_path()})", types.MessageType.Error)
            return {"status": "error", "message": one_line(exc)} if default is _RESULT else default

        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def async_wrapper(ls: PerfalignServer, *args: Any) -> Any:
                try:
                    return await fn(ls, *args)
                except Exception as exc:
                    return report(ls, exc)

            return async_wrapper  # type: ignore[return-value]

        @functools.wraps(fn)
        def wrapper(ls: PerfalignServer, *args: Any) -> Any:
            try:
                return fn(ls, *args)
            except Exception as exc:
                return report(ls, exc)

        return wrapper  # type: ignore[return-value]

    return decorate


_RESULT = object()  # commands answer {"status", "message"} when they fail


# ---------------------------------------------------------------- lifecycle


@server.feature(types.INITIALIZE)
@guarded()
def initialize(ls: PerfalignServer, params: types.InitializeParams) -> None:
    ls.loop = asyncio.get_running_loop()
    _route_sigterm_through_the_loop(ls.loop)
    root = ls.workspace.root_path
    if not root and params.workspace_folders:
        root = to_fs_path(params.workspace_folders[0].uri)
    ls.root = Path(root) if root else None
    options = params.initialization_options
    ls.editor_settings = editor_section(options) if options else {}
    experimental = params.capabilities.experimental
    if isinstance(experimental, dict):
        ls.diff_notification = bool(experimental.get("perfalignShowDiff"))
    if isinstance(options, dict) and options.get("showDiffNotification") is not None:
        ls.diff_notification = bool(options.get("showDiffNotification"))


def _route_sigterm_through_the_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Let SIGTERM wake the event loop: a plain signal handler can miss a loop asleep in epoll."""
    import signal

    handler = signal.getsignal(signal.SIGTERM)
    if not callable(handler) or threading.current_thread() is not threading.main_thread():
        return
    try:
        loop.add_signal_handler(signal.SIGTERM, handler, signal.SIGTERM, None)
    except (NotImplementedError, RuntimeError, ValueError):
        logger.debug("SIGTERM stays with the plain signal handler")


@server.feature(types.INITIALIZED)
@guarded()
async def initialized(ls: PerfalignServer, params: types.InitializedParams) -> None:
    threading.Thread(target=_warm_up, name="perfalign-warm-up", daemon=True).start()
    ls.refresh_settings(announce=True)
    await pull_configuration(ls)


def _warm_up() -> None:
    """Load the parsers after answering initialize, so the first code-action request is as fast as the rest."""
    try:
        from .. import cparse

        cparse.list_functions("int f(void) { return 0; }", "c")
        cparse.list_functions("int f() { return 0; }", "cpp")
    except Exception:
        logger.warning("loading the C/C++ parsers failed", exc_info=True)


async def pull_configuration(ls: PerfalignServer) -> None:
    caps = ls.client_capabilities.workspace
    if not (caps and caps.configuration):
        return
    try:
        answer = await asyncio.wait_for(
            ls.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section="perfalign")])
            ),
            timeout=5.0,
        )
    except Exception as exc:
        logger.warning("workspace/configuration failed: %s", exc)
        return
    if answer and isinstance(answer[0], dict):
        ls.editor_settings = {**ls.editor_settings, **editor_section(answer[0])}
        ls.refresh_settings(announce=True)


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
@guarded()
async def did_change_configuration(ls: PerfalignServer, params: types.DidChangeConfigurationParams) -> None:
    section = editor_section(params.settings) if isinstance(params.settings, dict) else {}
    if section:
        ls.editor_settings = section
        ls.reported_errors.clear()
        ls.refresh_settings(announce=False)
    else:
        await pull_configuration(ls)


@server.feature(types.SHUTDOWN)
@guarded()
def shutdown(ls: PerfalignServer, params: None) -> None:
    ls.stop_jobs()


# ---------------------------------------------------------------- document sync


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
@guarded()
def did_open(ls: PerfalignServer, params: types.DidOpenTextDocumentParams) -> None:
    uri = params.text_document.uri
    try:
        view = ls.view(uri)
    except Refusal as exc:
        if exc.status != "unsupported":
            ls.warn_once(uri, f"{Path(unquote(uri)).name}: {exc.message}")
        return
    if view.parse_error:
        ls.log(f"{uri}: {view.parse_error}")
    if ls.hot_in(view):
        ls.publish(uri)  # the kept profile ranks functions of this file hot


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
@guarded()
def did_change(ls: PerfalignServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.document_changed(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
@guarded()
def did_close(ls: PerfalignServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.document_closed(params.text_document.uri)


# ---------------------------------------------------------------- code actions


def _wanted(only: list[str] | None, kind: str) -> bool:
    if not only:
        return True
    return any(kind == o or kind.startswith(o + ".") for o in only)


def _llm_tag(ls: PerfalignServer) -> list[types.CodeActionTag] | None:
    """The model-generated tag (LSP 3.18), for clients that declare they know it."""
    caps = ls.client_capabilities.text_document
    action = caps.code_action if caps else None
    support = action.tag_support if action else None
    if support is not None and types.CodeActionTag.LlmGenerated in support.value_set:
        return [types.CodeActionTag.LlmGenerated]
    return None


MAX_SAMPLES = 64  # the most candidates one job may sample (the setting's bound)


def _retry_action(ls: PerfalignServer, params: types.CodeActionParams, result: FunctionResult,
                  target: dict[str, Any]) -> types.CodeAction | None:
    """"Try again with more samples" on a function whose job found nothing: a new seed, twice the samples."""
    samples = min(MAX_SAMPLES, 2 * (result.samples or ls.settings.samples))
    if result.samples >= MAX_SAMPLES:
        return None
    command = CMD_OPTIMIZE if result.mode == "serial" else CMD_PARALLELIZE
    arg = {**target, "samples": samples, "seed": secrets.randbelow(1 << 31)}
    title = f"Try again with more samples ({samples})"
    why = [d for d in params.context.diagnostics if d.source == SOURCE and d.code == JobState.NONE.value]
    return types.CodeAction(title=title, kind=MODE_KIND[result.mode], diagnostics=why or None,
                            command=types.Command(title=title, command=command, arguments=[arg]), data=arg)


def _resolve_edit_lazily(ls: PerfalignServer) -> bool:
    caps = ls.client_capabilities.text_document
    action = caps.code_action if caps else None
    support = action.resolve_support if action else None
    return bool(support and "edit" in support.properties)


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[KIND_OPTIMIZE, KIND_OPENMP], resolve_provider=True),
)
@guarded(default=[])
async def code_action(ls: PerfalignServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    only = params.context.only
    if only is not None and not any(_wanted(only, k) for k in (KIND_OPTIMIZE, KIND_OPENMP)):
        return []
    try:
        view = await ls.load(uri)
    except Refusal as exc:
        if exc.status != "unsupported":
            named = exc.message if exc.status in FILE_PROBLEMS else f"{Path(unquote(uri)).name}: {exc.message}"
            ls.warn_once(uri, named)
        return []
    span = ls.function_at(view, params.range.start.line)
    if span is None:
        return []
    name = function_name(span.info)
    actions: list[types.CodeAction] = []
    result = ls.results.get(uri, {}).get(name)
    if result is not None and result.offer is not None and same_code(span.info.text, result.original_code):
        lazy = _resolve_edit_lazily(ls)
        tags = _llm_tag(ls)
        kind = MODE_KIND[result.mode]
        for rank, suggestion in enumerate(result.offer.offered):
            if not _wanted(only, kind):
                break
            ref = {"uri": uri, "suggestion": suggestion.key}
            apply = types.CodeAction(
                title=suggestion.title,
                kind=kind,
                is_preferred=rank == 0,
                command=types.Command(title=suggestion.title, command=CMD_APPLY, arguments=[{**ref, "applied": True}]),
                data=ref,
                tags=tags,
            )
            if not lazy:
                apply.edit = ls.edit_for(uri, result, suggestion)
                if apply.edit is None:
                    continue
            actions.append(apply)
            actions.append(
                types.CodeAction(
                    title=f"Show diff{suggestion_label(suggestion)}",
                    kind=kind,
                    command=types.Command(title="Show diff", command=CMD_SHOW_DIFF, arguments=[ref]),
                )
            )
            actions.append(
                types.CodeAction(
                    title=f"Reject suggestion{suggestion_label(suggestion)}",
                    kind=kind,
                    command=types.Command(title="Reject suggestion", command=CMD_REJECT, arguments=[ref]),
                )
            )
    job = ls.jobs.running(uri, name)
    target = {"uri": uri, "function": name, "line": span.first_line}
    if (job is None and result is not None and result.status is JobState.NONE and result.offer is None
            and same_code(span.info.text, result.original_code) and _wanted(only, MODE_KIND[result.mode])):
        retry = _retry_action(ls, params, result, target)
        if retry is not None:
            actions.append(retry)
    # On a function the kept profile ranks hot, the two actions carry its diagnostic, and Optimize is preferred
    # unless a verified rewrite is on offer: clients list them first.
    hot = ls.hot_in(view).get(name)
    hot_diagnostics = [ls.hot_diagnostic(view, span, hot)] if hot is not None else None
    offered = any(a.is_preferred for a in actions)
    for mode, command in (("serial", CMD_OPTIMIZE), ("openmp", CMD_PARALLELIZE)):
        kind = MODE_KIND[mode]
        if not _wanted(only, kind):
            continue
        if job is not None and job.mode == mode:
            actions.append(
                types.CodeAction(
                    title=f"Cancel {MODE_VERB[mode]} {name}",
                    kind=kind,
                    command=types.Command(title="Cancel", command=CMD_CANCEL, arguments=[{"job": job.id}]),
                )
            )
            continue
        actions.append(
            types.CodeAction(
                title=MODE_TITLE[mode],
                kind=kind,
                command=types.Command(title=MODE_TITLE[mode], command=command, arguments=[target]),
                data=target,
                diagnostics=hot_diagnostics,
                is_preferred=True if hot is not None and mode == "serial" and not offered else None,
            )
        )
    return actions


@server.feature(types.CODE_ACTION_RESOLVE)
@guarded(default=None)
def code_action_resolve(ls: PerfalignServer, action: types.CodeAction) -> types.CodeAction:
    data = action.data if isinstance(action.data, dict) else {}
    if "suggestion" in data and action.edit is None:
        found = ls.find_offer(str(data.get("uri")), str(data.get("suggestion")))
        if found is not None and found[1].state is State.OFFERED:
            action.edit = ls.edit_for(str(data["uri"]), found[0], found[1])
        if action.edit is None:
            action.disabled = types.CodeActionDisabledType(
                reason="the function changed since this suggestion was verified; run the action again"
            )
            action.command = None
    return action


# ---------------------------------------------------------------- commands


def _argument(args: tuple[Any, ...]) -> dict[str, Any]:
    """Commands take one object; ``[uri, line]`` is accepted too."""
    if len(args) == 1 and isinstance(args[0], dict):
        return dict(args[0])
    if len(args) >= 1 and isinstance(args[0], str):
        out: dict[str, Any] = {"uri": args[0]}
        if len(args) >= 2 and isinstance(args[1], int):
            out["line"] = args[1]
        elif len(args) >= 2 and isinstance(args[1], str):
            out["function"] = args[1]
        return out
    return {}


@server.command(CMD_OPTIMIZE)
@guarded(default=_RESULT)
async def optimize_command(ls: PerfalignServer, *args: Any) -> dict[str, Any]:
    return await start_job(ls, _argument(args), "serial")


@server.command(CMD_PARALLELIZE)
@guarded(default=_RESULT)
async def parallelize_command(ls: PerfalignServer, *args: Any) -> dict[str, Any]:
    return await start_job(ls, _argument(args), "openmp")


async def start_job(ls: PerfalignServer, arg: dict[str, Any], mode: str) -> dict[str, Any]:
    uri = arg.get("uri")
    if not isinstance(uri, str):
        raise Refusal("bad_request", "the command needs a document: {\"uri\": ..., \"line\": N} or {\"uri\": ..., \"function\": NAME}")
    view = await ls.load(uri)
    if view.parse_error and not view.functions:
        raise Refusal("parse_error", f"{Path(unquote(uri)).name} does not parse: {view.parse_error}")
    span: Span | None
    if isinstance(arg.get("function"), str):
        span = ls.function_named(view, arg["function"])
        if span is None and isinstance(arg.get("line"), int):
            span = ls.function_at(view, arg["line"])
        if span is None:
            raise Refusal("no_function", f"no function named {arg['function']} in {Path(unquote(uri)).name}")
    elif isinstance(arg.get("line"), int):
        span = ls.function_at(view, arg["line"])
        if span is None:
            raise Refusal("no_function", f"line {arg['line'] + 1} is not inside a function; put the cursor in the function to {'optimize' if mode == 'serial' else 'parallelize'}")
    else:
        raise Refusal("bad_request", "the command needs a \"line\" or a \"function\"")
    name = function_name(span.info)
    running = ls.jobs.running(uri, name)
    if running is not None:
        if running.mode == mode and not running.cancel.is_set():
            running.joined += 1
            return {"status": "joined", "job": running.id, "message": f"already {MODE_VERB[mode]} {name}; following that job"}
        raise Refusal(
            "busy",
            f"already {MODE_VERB[running.mode]} {name}; wait for it or cancel it before {MODE_VERB[mode]} it",
        )
    ls.refresh_settings(announce=False)
    _warn_if_unsandboxed(ls)
    job = Job(uri=uri, function=name, mode=mode, version=view.version, samples=_whole(arg.get("samples"), MAX_SAMPLES),
              seed=_whole(arg.get("seed"), (1 << 31) - 1))
    # The previous result for this function is replaced: what it still offered goes unused.
    previous = ls.results.get(uri, {}).pop(name, None)
    if previous is not None and previous.offer is not None:
        ls.record_feedback(previous.offer.close())
        ls.publish(uri)
    ls.pending[job.id] = PendingJob(original_code=span.info.text)
    job.token = await begin_progress(ls, job, arg.get("workDoneToken"))
    if not view.is_open or (view.path is not None and _differs_from_disk(view)):
        ls.log(f"{name}: working on the editor's text, which is not saved")
    ls.jobs.start(job, functools.partial(_work, ls, view, span), functools.partial(on_event, ls), functools.partial(on_done, ls))
    return {"status": "started", "job": job.id, "function": name, "mode": mode}


def _whole(value: Any, most: int) -> int | None:
    """A whole number from 1 to ``most`` in a command's argument, else None (the setting applies)."""
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= most:
        return value
    return None


def _warn_if_unsandboxed(ls: PerfalignServer) -> None:
    """Say once, in the editor, what protection is missing when model-written code runs without bubblewrap."""
    from ..verify import sandbox_status

    warning = sandbox_status(bool(ls.settings.sandbox)).warning
    if warning and ("", warning) not in ls.warned:
        ls.warned.add(("", warning))
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=warning))


def _differs_from_disk(view: DocView) -> bool:
    try:
        return view.path is not None and view.path.read_text(encoding="utf-8") != view.text
    except (OSError, UnicodeDecodeError):
        return True


async def begin_progress(ls: PerfalignServer, job: Job, client_token: Any) -> str | int | None:
    token: str | int | None = client_token if isinstance(client_token, (str, int)) else None
    if token is None:
        caps = ls.client_capabilities.window
        if not (caps and caps.work_done_progress):
            return None
        token = f"perfalign/{job.id}"
        try:
            await asyncio.wait_for(ls.work_done_progress.create_async(token), timeout=5.0)
        except Exception as exc:
            logger.warning("window/workDoneProgress/create failed: %s", exc)
            return None
    ls.work_done_progress.begin(
        token,
        types.WorkDoneProgressBegin(
            title=f"perfalign: {MODE_VERB[job.mode]} {job.function}",
            cancellable=True,
            message="starting",
            percentage=0,
        ),
    )
    return token


def _work(ls: PerfalignServer, view: DocView, span: Span, job: Job) -> Iterator[Any]:
    """Runs in the job's thread: load the model, open the store, run the pipeline."""
    from ..optimize import OptimizeRequest, run_optimize

    settings = ls.settings
    yield Progress(0.0, "loading the model" if ls.models.loaded_name is None else "starting")
    backend = ls.models.get(settings)
    if job.cancel.is_set():
        return
    store = ls.pipeline_store()
    path = view.path
    if path is None or cparse_language(path) != view.language:
        # An unsaved buffer, or a header the editor treats as another language.
        folder = path.parent if path is not None else (ls.root or Path(tempfile.gettempdir()))
        path = folder / (f"untitled.{'cpp' if view.language == 'cpp' else 'c'}")
    request = OptimizeRequest(
        path=path,
        text=view.text,
        function=function_name(span.info),
        line=span.info.start_line,
        mode=job.mode,
        source="lsp",
        workspace=ls.root,
        samples=job.samples,
        seed=job.seed,
    )
    yield from run_optimize(request, settings, backend=backend, store=store, cancel=job.cancel)


def cparse_language(path: Path) -> str:
    from .. import cparse

    return cparse.language_for(path)


def on_event(ls: PerfalignServer, job: Job, event: Any) -> None:
    if isinstance(event, Progress):
        job.last_fraction, job.last_message = event.fraction, event.message
        if job.token is not None and not job.cancel.is_set():
            ls.work_done_progress.report(
                job.token,
                types.WorkDoneProgressReport(
                    message=event.message, percentage=max(0, min(100, int(event.fraction * 100)))
                ),
            )
    elif isinstance(event, VerdictReady):
        if event.candidate.verdict.verified and not job.cancel.is_set():
            offer_early(ls, job, event.candidate)
    elif isinstance(event, Finished):
        pending = ls.pending.get(job.id)
        if pending is not None:
            pending.finished = event


def _suggestion(ls: PerfalignServer, candidate: Any) -> Suggestion:
    includes, replacement = split_candidate(candidate.code)
    verdict = candidate.verdict
    return Suggestion(
        key=ls.next_key(),
        code=replacement,
        title=apply_title(verdict, candidate.strategy_name),
        candidate_id=candidate.candidate_id,
        diff=candidate.diff,
        speedup=verdict.speedup,
        includes=includes,
        low=verdict.ci95[0] if verdict.ci95 is not None else verdict.speedup,
        evidence=scaling_summary(verdict.scaling, verdict.compiler_alone),
        plot=scaling_svg(verdict.scaling, verdict.compiler_alone),
    )


def _listed(suggestions: list[Suggestion]) -> list[dict[str, Any]]:
    return [{"suggestion": s.key, "title": s.title, "speedup": s.speedup, "candidateId": s.candidate_id} for s in suggestions]


def _unchanged(ls: PerfalignServer, job: Job, original: str) -> bool:
    """Whether the job's function still has the body the job works on (it may have moved)."""
    try:
        span = ls.function_named(ls.view(job.uri), job.function, original)
    except Refusal:
        return False
    return span is not None and same_code(span.info.text, original)


def offer_early(ls: PerfalignServer, job: Job, candidate: Any) -> None:
    """A candidate verified faster while the job goes on: offer it now, ranked with any found before."""
    pending = ls.pending.get(job.id)
    if pending is None or not _unchanged(ls, job, pending.original_code):
        return  # the function changed: the job's end says its results were withdrawn
    if pending.offer is None:
        pending.offer = Offer(job.uri, job.function, job.mode, pending.original_code)
    offer = pending.offer
    if offer.accepted is not None or offer.add(_suggestion(ls, candidate)).state is not State.OFFERED:
        return
    results = ls.results.setdefault(job.uri, {})
    result = results.get(job.function)
    if result is None or result.offer is not offer:
        result = results[job.function] = FunctionResult(
            job.uri, job.function, job.mode, JobState.VERIFIED, "", pending.original_code, offer
        )
    result.status, result.summary = JobState.VERIFIED, found_summary(job.function, offer, checking=True)
    ls.publish(job.uri)


def on_done(ls: PerfalignServer, job: Job, error: BaseException | None) -> None:
    pending = ls.pending.pop(job.id, None)
    finished = pending.finished if pending else None
    early = pending.offer if pending is not None else None
    payload: dict[str, Any] = {"uri": job.uri, "function": job.function, "mode": job.mode, "job": job.id}
    if early is not None and early.accepted is not None:
        # The user applied a suggestion offered while the job ran, which ended the job.
        message = f"applied a verified rewrite of {job.function}; the remaining candidates were not checked"
        if job.token is not None:
            ls.work_done_progress.end(job.token, types.WorkDoneProgressEnd(message=message))
        ls.protocol.notify(NOTIFY_JOB_FINISHED, {**payload, "status": JobState.APPLIED, "summary": message, "suggestions": []})
        return
    if job.cancel.is_set():
        status, message = JobState.CANCELLED, f"cancelled {MODE_VERB[job.mode]} {job.function}"
    elif error is not None:
        status = JobState.FAILED
        detail = one_line(error)
        if isinstance(error, (PerfalignError, OSError)):
            message = f"{MODE_VERB[job.mode]} {job.function} failed: {detail}"
        else:
            message = f"{MODE_VERB[job.mode]} {job.function} failed: {detail} (details in {log_path()})"
    elif finished is None:
        status, message = JobState.FAILED, f"{MODE_VERB[job.mode]} {job.function} ended without a result"
    else:
        status, message = None, ""
    if job.token is not None:
        ls.work_done_progress.end(job.token, types.WorkDoneProgressEnd(message=message or "done"))
    if status in (JobState.CANCELLED, JobState.FAILED):
        # Suggestions verified before the job stopped stay offered.
        result = ls.results.get(job.uri, {}).get(job.function)
        kept = early.offered if early is not None and result is not None and result.offer is early else []
        if kept:
            assert result is not None and early is not None
            result.summary = found_summary(job.function, early)
            message += f"; {len(kept)} rewrite{'s' if len(kept) > 1 else ''} verified before then {'are' if len(kept) > 1 else 'is'} still offered"
        elif status is JobState.FAILED:
            ls.results.setdefault(job.uri, {})[job.function] = FunctionResult(
                job.uri, job.function, job.mode, JobState.FAILED, f"perfalign: {message}", pending.original_code if pending else ""
            )
        ls.tell(message, types.MessageType.Error if status is JobState.FAILED else types.MessageType.Info)
        ls.publish(job.uri)
        ls.protocol.notify(NOTIFY_JOB_FINISHED, {
            **payload, "status": status, "summary": message,
            "suggestions": _listed(kept),
        })
        return
    finish(ls, job, finished, pending, payload)


def finish(ls: PerfalignServer, job: Job, finished: Any, pending: PendingJob | None, payload: dict[str, Any]) -> None:
    original = finished.original_code or (pending.original_code if pending else "")
    # The document may have changed while the job ran: keep the result only if
    # the function still has the body the job worked on (it may have moved).
    if not _unchanged(ls, job, original):
        message = f"{job.function} changed while perfalign was {MODE_VERB[job.mode]} it; its results were withdrawn. Run the action again."
        ls.tell(message, types.MessageType.Warning)
        ls.protocol.notify(NOTIFY_JOB_FINISHED, {**payload, "status": JobState.WITHDRAWN, "summary": message, "suggestions": []})
        return
    # Suggestions offered while the job ran keep their keys and what the user did with them.
    offer: Offer | None = pending.offer if pending is not None else None
    if offer is None:
        offer = Offer(job.uri, job.function, job.mode, original)
    for c in finished.suggestions:
        if c.verdict.verified:
            offer.add(_suggestion(ls, c))
    suggestions = offer.offered
    if suggestions:
        status, summary = JobState.VERIFIED, found_summary(job.function, offer)
    elif offer.suggestions:
        status, summary, offer = JobState.NONE, found_summary(job.function, offer), None  # the user rejected them all
    else:
        offer = None
        status = JobState.FAILED if finished.outcome is Outcome.ERROR else JobState.NONE
        summary = f"perfalign: {finished.summary or f'no verified rewrite of {job.function}'}"
    ls.results.setdefault(job.uri, {})[job.function] = FunctionResult(
        job.uri, job.function, job.mode, status, summary, original, offer, samples=job.samples or ls.settings.samples
    )
    ls.publish(job.uri)
    ls.tell(summary.removeprefix("perfalign: "), types.MessageType.Warning if status is JobState.FAILED else types.MessageType.Info)
    ls.protocol.notify(
        NOTIFY_JOB_FINISHED,
        {
            **payload,
            "status": status,
            "summary": summary,
            "suggestions": _listed(suggestions),
        },
    )


@server.command(CMD_APPLY)
@guarded(default=_RESULT)
async def apply_command(ls: PerfalignServer, *args: Any) -> dict[str, Any]:
    arg = _argument(args)
    uri, key = str(arg.get("uri")), str(arg.get("suggestion"))
    found = ls.find_offer(uri, key)
    if found is None:
        raise Refusal("unknown_suggestion", "that suggestion is no longer available; run the action again")
    result, suggestion = found
    if suggestion.state is State.ACCEPTED:
        return {"status": "applied", "suggestion": key}
    if suggestion.state is not State.OFFERED:
        raise Refusal("unknown_suggestion", "that suggestion is no longer available; run the action again")
    if not arg.get("applied"):
        edit = ls.edit_for(uri, result, suggestion)
        if edit is None:
            raise Refusal("stale", f"{result.function} changed since the suggestion was verified; run the action again")
        answer = await ls.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=edit, label=suggestion.title)
        )
        if not answer.applied:
            raise Refusal("not_applied", f"the editor did not apply the rewrite: {answer.failure_reason or 'no reason given'}")
    else:
        # The client applies an action's edit before running its command, and the change
        # that holds the rewrite marks it accepted. Still offered: the edit did not happen
        # (the document changed and the client refused the versioned edit).
        span = ls.function_named(ls.view(uri), result.function, result.original_code)
        if span is not None and same_code(span.info.text, result.original_code):
            raise Refusal("not_applied", "the editor did not apply the rewrite; run the action again")
    assert result.offer is not None
    ls.record_feedback(result.offer.apply(key))
    result.status, result.summary = JobState.APPLIED, f"perfalign: applied a verified rewrite of {result.function}"
    ls.end_job_of_applied(uri, result.function)
    ls.publish(uri)
    return {"status": "applied", "suggestion": key}


@server.command(CMD_REJECT)
@guarded(default=_RESULT)
def reject_command(ls: PerfalignServer, *args: Any) -> dict[str, Any]:
    arg = _argument(args)
    uri, key = str(arg.get("uri")), str(arg.get("suggestion"))
    found = ls.find_offer(uri, key)
    if found is None or found[0].offer is None:
        raise Refusal("unknown_suggestion", "that suggestion is no longer available")
    result, _ = found
    assert result.offer is not None
    ls.record_feedback(result.offer.reject(key))
    if not result.offer.live:
        result.offer = None
        result.status = JobState.NONE
        result.summary = f"perfalign: every suggestion for {result.function} was rejected"
    else:
        result.summary = found_summary(result.function, result.offer)
    ls.publish(uri)
    return {"status": "rejected", "suggestion": key}


@server.command(CMD_SHOW_DIFF)
@guarded(default=_RESULT)
async def show_diff_command(ls: PerfalignServer, *args: Any) -> dict[str, Any]:
    arg = _argument(args)
    uri, key = str(arg.get("uri")), str(arg.get("suggestion"))
    found = ls.find_offer(uri, key)
    if found is None:
        raise Refusal("unknown_suggestion", "that suggestion is no longer available")
    result, suggestion = found
    title = f"{result.function}: {suggestion.title.split(': ', 1)[-1]}"
    diff = suggestion.diff or unified_diff(result.original_code, suggestion.code,
                                           before=f"{result.function} (original)", after=f"{result.function} (rewrite)")
    if ls.diff_notification:
        ls.protocol.notify(
            NOTIFY_SHOW_DIFF,
            {"uri": uri, "original": result.original_code, "candidate": suggestion.code, "title": title,
             "evidence": suggestion.evidence, "plot": suggestion.plot},
        )
        return {"status": "shown", "diff": diff, "evidence": suggestion.evidence}
    folder = home_dir() / "diffs"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{_safe(result.function)}-{suggestion.key}.diff"
    path.write_text(diff, encoding="utf-8")
    caps = ls.client_capabilities.window
    if caps and caps.show_document and caps.show_document.support:
        from pygls.uris import from_fs_path

        await ls.window_show_document_async(
            types.ShowDocumentParams(uri=from_fs_path(str(path)) or str(path), take_focus=True)
        )
    else:
        ls.tell(f"diff of {title} written to {path}" + (f" ({suggestion.evidence})" if suggestion.evidence else ""))
    return {"status": "written", "path": str(path), "diff": diff, "evidence": suggestion.evidence}


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name)[:80]


@server.command(CMD_CANCEL)
@guarded(default=_RESULT)
def cancel_command(ls: PerfalignServer, *args: Any) -> dict[str, Any]:
    arg = _argument(args)
    if isinstance(arg.get("job"), str):
        job = ls.jobs.by_id(arg["job"])
        targets = [job] if job is not None else []
    elif isinstance(arg.get("uri"), str):
        targets = [j for j in ls.jobs.for_uri(arg["uri"]) if arg.get("function") in (None, j.function)]
    else:
        targets = list(ls.jobs.jobs.values())
    cancelled = ls.jobs.cancel(targets)
    return {"status": "cancelled" if cancelled else "nothing_running", "jobs": [j.id for j in cancelled]}


@server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
@guarded()
def progress_cancel(ls: PerfalignServer, params: types.WorkDoneProgressCancelParams) -> None:
    job = ls.jobs.by_token(params.token)
    if job is not None:
        ls.jobs.cancel([job])


@server.command(CMD_REPORT)
@guarded(default=_RESULT)
def report_command(ls: PerfalignServer, *args: Any) -> dict[str, Any]:
    """What the server is doing: settings, model, store, jobs and suggestions."""
    from ..store import store_path

    arg = _argument(args)
    only_uri = arg.get("uri")
    suggestions = []
    for uri, results in ls.results.items():
        if only_uri and uri != only_uri:
            continue
        for result in results.values():
            entry: dict[str, Any] = {"uri": uri, "function": result.function, "mode": result.mode, "status": result.status, "summary": result.summary}
            if result.offer is not None:
                entry["suggestions"] = [
                    {"suggestion": s.key, "title": s.title, "state": s.state.value, "candidateId": s.candidate_id}
                    for s in result.offer.suggestions
                ]
            suggestions.append(entry)
    report = {
        "version": ls.version,
        "pid": os.getpid(),
        "settings": ls.settings.model_dump(),
        "settingsErrors": ls.effective.errors,
        "configFile": str(ls.effective.config_file) if ls.effective.config_file else None,
        "model": ls.models.loaded_name,
        "llamaBuild": _llama_build(ls),
        "heavyModules": sorted(m for m in ("torch", "transformers", "llama_cpp") if m in sys.modules),
        "raceDetection": _race_detection(),
        "store": str(store_path(ls.settings)),
        "storeProblem": ls.store_problem or (ls.store_writer.disabled_reason if ls.store_writer is not None else None),
        "jobs": [j.describe() for j in ls.jobs.jobs.values() if not only_uri or j.uri == only_uri],
        "results": suggestions,
        "hotspots": _hotspots_report(ls, only_uri),
        "log": str(log_path()),
    }
    ls.log(f"report: {report}")
    return report


def _hotspots_report(ls: PerfalignServer, only_uri: str | None) -> dict[str, Any] | None:
    """The workspace's kept profile: the command, the profiler, and every ranked function with where it is now."""
    from ..hotspots import profile_path, ranked

    profile = ls.hot.profile(ls.root)
    if profile is None or ls.root is None:
        return {"problem": ls.hot.problem} if ls.hot.problem else None

    def read(path: Path) -> str | None:
        opened = ls.workspace.text_documents.get(unquote(path.as_uri()))
        if opened is not None:
            return opened.source
        try:
            return ls.view(path.as_uri()).text
        except Refusal:
            return None

    functions = []
    for hot in ranked(profile, ls.root, read):
        uri = (ls.root / hot.function.path).as_uri()
        if only_uri and uri != only_uri:
            continue
        functions.append({
            "rank": hot.rank, "uri": uri, "path": hot.function.path, "function": hot.function.name,
            "line": (hot.line or hot.function.line) - 1, "self": hot.function.self_share,
            "inclusive": hot.function.inclusive_share, "stale": hot.stale,
        })
    return {
        "command": profile.command_text, "time": profile.time, "profiler": profile.profiler,
        "overhead": profile.overhead, "binaryChanged": ls.hot.binary_note(profile),
        "systemShare": profile.system_share, "file": str(profile_path(ls.root)),
        "functions": functions,
    }


def _race_detection() -> str:
    """Whether OpenMP rewrites are checked for data races with ThreadSanitizer and Archer, in words."""
    from ..verify import archer_available

    if archer_available():
        return "available (ThreadSanitizer with LLVM's Archer)"
    return ("not available: OpenMP rewrites are checked for races only by repeated runs (install clang, its "
            "ThreadSanitizer runtime and LLVM's Archer: see docs/safety.md)")


def _llama_build(ls: PerfalignServer) -> str | None:
    """Which llama.cpp build samples: the loaded model's line, else the installed build's; None for other backends."""
    loaded = ls.models.backend
    line = getattr(loaded, "build_line", None)
    if isinstance(line, str):
        return line
    return llama_lib.installed_build().summary() if ls.settings.backend == "llama-cpp" else None

