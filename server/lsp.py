"""The perfalign language server.

"Optimize this function" and "Parallelize with OpenMP" are offered on the C or
C++ function under the cursor from the parse alone. Invoking one starts a job
(``lsp_jobs``) that runs the optimize pipeline in a worker thread; its events
come back to the event loop as ``$/progress``. When it ends, its verified
suggestions become code actions on that function and an information
diagnostic says what was found or why nothing was. What the user does with each
suggestion is logged to the preference store (``lsp_feedback``).

State lives on :class:`PerfalignServer`; handlers are module functions. No
handler raises: a failure becomes a message in the editor and a line in the
server log.
"""
from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import os
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from perfalign.server.lsp_config import EffectiveSettings, editor_section, effective_settings
from perfalign.server.lsp_feedback import Logged, Offer, State, Suggestion
from perfalign.server.lsp_jobs import Job, JobManager
from perfalign.server.lsp_model import ModelCache
from perfalign.server.lsp_text import UTF8, UTF16, UTF32, LineIndex, NotUtf8, same_code, split_candidate, squashed
from perfalign.server.paths import home_dir

logger = logging.getLogger("perfalign.lsp")

KIND_OPTIMIZE = "refactor.rewrite.optimize"
KIND_OPENMP = "refactor.rewrite.parallelize.openmp"
MODE_KIND = {"serial": KIND_OPTIMIZE, "openmp": KIND_OPENMP}
MODE_TITLE = {"serial": "Optimize this function", "openmp": "Parallelize with OpenMP"}
MODE_VERB = {"serial": "optimizing", "openmp": "parallelizing"}

CMD_OPTIMIZE = "perfalign.optimize"
CMD_PARALLELIZE = "perfalign.parallelize"
CMD_APPLY = "perfalign.apply"
CMD_SHOW_DIFF = "perfalign.showDiff"
CMD_REJECT = "perfalign.reject"
CMD_CANCEL = "perfalign.cancel"
CMD_REPORT = "perfalign.report"

NOTIFY_SHOW_DIFF = "perfalign/showDiff"
NOTIFY_JOB_FINISHED = "perfalign/jobFinished"

MAX_DOCUMENT_BYTES = 2_000_000
SOURCE = "perfalign"
LANGUAGE_IDS = {"c": "c", "cpp": "cpp", "cuda-cpp": "cpp", "objective-c": "c", "objective-cpp": "cpp"}


def log_path() -> Path:
    return home_dir() / "server.log"


# ---------------------------------------------------------------- documents


class Refusal(Exception):
    """Why perfalign cannot work on a document or a function: a status and a one-line reason."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class DocView:
    """One version of a document, parsed."""

    uri: str
    version: int | None
    text: str
    language: str
    path: Path | None
    index: LineIndex
    functions: list[Any]  # cparse.FunctionInfo
    is_open: bool
    parse_error: str | None = None


@dataclass
class Span:
    """Where a function is in a DocView, in lines."""

    info: Any  # cparse.FunctionInfo
    first_line: int
    last_line: int


@dataclass
class FunctionResult:
    """What the last finished job on one function found: a summary and maybe an offer."""

    uri: str
    function: str
    mode: str
    status: str  # verified | none | failed
    summary: str
    original_code: str
    offer: Offer | None = None


@dataclass
class PendingJob:
    """What the server remembers about a running job beyond the job manager's record."""

    view: DocView
    original_code: str
    finished: Any = None  # the pipeline's Finished event


class PerfalignServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "perfalign",
            _version(),
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
        )
        self.root: Path | None = None
        self.editor_settings: dict[str, Any] = {}
        self.effective: EffectiveSettings = effective_settings(None, None)
        self.reported_errors: set[str] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.jobs = JobManager(self._post)
        self.pending: dict[str, PendingJob] = {}
        self.results: dict[str, dict[str, FunctionResult]] = {}
        self.models = ModelCache()
        self.store_writer: Any = None
        self.store_problem: str | None = None
        self._store_lock = threading.Lock()
        self._views: dict[str, DocView] = {}
        self._keys = 0
        self.diff_notification = False
        self.warned: set[tuple[str, str]] = set()

    # -- plumbing -------------------------------------------------------

    def _post(self, fn: Callable[[], None]) -> None:
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(_guarded_call, self, fn)

    def next_key(self) -> str:
        self._keys += 1
        return f"s{self._keys}"

    @property
    def settings(self) -> Any:
        return self.effective.settings

    @property
    def encoding(self) -> str:
        value = str(getattr(self.workspace.position_encoding, "value", self.workspace.position_encoding) or "")
        return {"utf-8": UTF8, "utf-32": UTF32}.get(value, UTF16)

    def tell(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.window_show_message(types.ShowMessageParams(type=kind, message=f"perfalign: {message}"))

    def log(self, message: str, kind: types.MessageType = types.MessageType.Log) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def warn_once(self, uri: str, message: str) -> None:
        """Show a problem with a document once, not at every code-action request."""
        if (uri, message) in self.warned:
            return
        self.warned.add((uri, message))
        self.tell(message, types.MessageType.Warning)

    # -- settings -------------------------------------------------------

    def refresh_settings(self, announce: bool) -> None:
        before = self.effective.settings
        self.effective = effective_settings(self.root, self.editor_settings)
        for error in self.effective.errors:
            if error not in self.reported_errors:
                self.reported_errors.add(error)
                self.tell(error, types.MessageType.Warning)
        if announce or self.effective.settings != before:
            self.log(self.effective.describe(), types.MessageType.Info)

    # -- the store --------------------------------------------------------

    def store(self) -> Any:
        """The preference store's writer, opened on first use (in a worker thread); None when off."""
        settings = self.settings
        if not settings.log_to_store:
            return None
        with self._store_lock:
            if self.store_writer is None and self.store_problem is None:
                try:
                    from perfalign.server.paths import default_db_path
                    from perfalign.server.store import StorePolicy
                    from perfalign.server.store_writer import StoreWriter

                    path = Path(settings.db_path).expanduser() if settings.db_path else default_db_path()
                    self.store_writer = StoreWriter(path, policy=StorePolicy.from_settings(settings))
                except Exception as exc:
                    self.store_problem = f"the preference store is off: {_one_line(exc)}"
                    logger.warning("%s", self.store_problem, exc_info=True)
                    self._post(lambda: self.tell(self.store_problem or "", types.MessageType.Warning))
            return self.store_writer

    def pipeline_store(self) -> "WriterStore | None":
        writer = self.store()
        return WriterStore(writer) if writer is not None else None

    def record_feedback(self, logged: Logged) -> None:
        writer = self.store_writer
        for suggestion, action in logged:
            logger.info("feedback %s on %s", action.value, suggestion.candidate_id or suggestion.key)
            if writer is None or suggestion.candidate_id is None:
                continue
            candidate_id, value = suggestion.candidate_id, action.value
            future = writer.submit(lambda s, c=candidate_id, a=value: s.record_feedback(c, a, "lsp"))
            future.add_done_callback(_log_failed_write)

    # -- documents ----------------------------------------------------------

    def view(self, uri: str) -> DocView:
        """The document as perfalign sees it; raises :class:`Refusal` with what is wrong."""
        from perfalign.server import cparse

        key = unquote(uri)
        opened = self.workspace.text_documents.get(key)
        if opened is not None:
            cached = self._views.get(uri)
            if cached is not None and cached.version == opened.version and cached.is_open:
                return cached
            text = opened.source
            version = opened.version
            language_id = opened.language_id or ""
        else:
            path = to_fs_path(uri)
            if path is None or not Path(path).is_file():
                raise Refusal("not_found", f"{uri} is neither open in the editor nor a file on disk")
            data = Path(path).read_bytes()
            if len(data) > MAX_DOCUMENT_BYTES:
                raise _too_large(len(data))
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                raise Refusal("not_utf8", "the file is not valid UTF-8 text; save it as UTF-8 to use perfalign") from None
            version = None
            language_id = ""
        fs_path = to_fs_path(uri)
        path = Path(fs_path) if fs_path else None
        language = LANGUAGE_IDS.get(language_id)
        if language is None and path is not None:
            try:
                language = cparse.language_for(path)
            except Exception:
                language = None
        if language is None:
            raise Refusal("unsupported", "perfalign works on C and C++ files only")
        if len(text) > MAX_DOCUMENT_BYTES:
            raise _too_large(len(text))
        try:
            index = LineIndex.of(text)
        except NotUtf8 as exc:
            raise Refusal("not_utf8", str(exc)) from None
        if len(index.data) > MAX_DOCUMENT_BYTES:
            raise _too_large(len(index.data))
        functions: list[Any] = []
        parse_error = None
        try:
            functions = list(cparse.list_functions(text, language))
        except cparse.CParseError as exc:
            parse_error = exc.message
        view = DocView(uri, version, text, language, path, index, functions, opened is not None, parse_error)
        if opened is not None:
            self._views[uri] = view
        return view

    def spans(self, view: DocView) -> list[Span]:
        return [
            Span(f, view.index.line_of(f.start_byte), view.index.line_of(max(f.start_byte, f.end_byte - 1)))
            for f in view.functions
        ]

    def function_at(self, view: DocView, line: int) -> Span | None:
        """The innermost function whose lines include ``line``."""
        inside = [s for s in self.spans(view) if s.first_line <= line <= s.last_line]
        if not inside:
            return None
        return min(inside, key=lambda s: s.last_line - s.first_line)

    def function_named(self, view: DocView, name: str, expected: str | None = None) -> Span | None:
        """The function called ``name``; among overloads, the one whose text is ``expected``."""
        named = [s for s in self.spans(view) if _name(s.info) == name]
        if expected is not None:
            for s in named:
                if same_code(s.info.text, expected):
                    return s
        return named[0] if named else None

    def range_of(self, view: DocView, start_byte: int, end_byte: int) -> types.Range:
        sl, sc = view.index.position(start_byte, self.encoding)
        el, ec = view.index.position(end_byte, self.encoding)
        return types.Range(types.Position(sl, sc), types.Position(el, ec))

    def header_range(self, view: DocView, span: Span) -> types.Range:
        """The function's first line: where its diagnostic goes."""
        end = view.index.line_end(span.first_line)
        return self.range_of(view, span.info.start_byte, max(end, span.info.start_byte))

    # -- results and diagnostics --------------------------------------------

    def publish(self, uri: str) -> None:
        diagnostics: list[types.Diagnostic] = []
        results = self.results.get(uri, {})
        if results:
            try:
                view = self.view(uri)
            except Refusal:
                view = None
            if view is not None:
                for result in results.values():
                    if result.status == "applied":
                        continue  # the rewrite is in place: nothing left to say
                    span = self.function_named(view, result.function, _live_code(result))
                    if span is None:
                        continue
                    diagnostics.append(
                        types.Diagnostic(
                            range=self.header_range(view, span),
                            message=result.summary,
                            severity=types.DiagnosticSeverity.Information,
                            source=SOURCE,
                            code=result.status,
                            data={"function": result.function, "mode": result.mode},
                        )
                    )
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics))

    def document_changed(self, uri: str) -> None:
        """Follow the functions that have results: dismissed, accepted, edited after accept."""
        results = self.results.get(uri)
        if not results:
            return
        try:
            view = self.view(uri)
        except Refusal:
            return
        for name, result in list(results.items()):
            span = self.function_named(view, name, _live_code(result))
            text = span.info.text if span is not None else None
            if result.offer is None:
                if not same_code(text, result.original_code):
                    del results[name]  # a finding about a body that is gone
                continue
            self.record_feedback(result.offer.function_now(text))
            if not result.offer.live:
                del results[name]
            elif result.offer.accepted is not None:
                result.status, result.summary = "applied", f"perfalign: applied a verified rewrite of {name}"
            else:
                result.status, result.summary = "verified", _found_summary(name, result.offer)
        # Positions move with every edit: diagnostics are published again each time.
        self.publish(uri)

    def document_closed(self, uri: str) -> None:
        for job in self.jobs.cancel(self.jobs.for_uri(uri)):
            logger.info("cancelled %s: %s was closed", job.id, uri)
        for result in self.results.pop(uri, {}).values():
            if result.offer is not None:
                self.record_feedback(result.offer.close())
        self._views.pop(uri, None)
        self.warned = {w for w in self.warned if w[0] != uri}
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def find_offer(self, uri: str, key: str) -> tuple[FunctionResult, Suggestion] | None:
        for result in self.results.get(uri, {}).values():
            if result.offer is not None and (s := result.offer.find(key)) is not None:
                return result, s
        return None

    def edit_for(self, uri: str, result: FunctionResult, suggestion: Suggestion) -> types.WorkspaceEdit | None:
        """The edit replacing exactly the function's current range; None if its body changed."""
        view = self.view(uri)
        span = self.function_named(view, result.function, result.original_code)
        if span is None or not same_code(span.info.text, result.original_code):
            return None
        edits = [
            types.TextEdit(
                range=self.range_of(view, span.info.start_byte, span.info.end_byte),
                new_text=suggestion.code.strip("\n"),
            )
        ]
        # A header the rewrite needs (and the verifier compiled with) that the file lacks.
        missing = [inc for inc in suggestion.includes if squashed(inc) not in squashed(view.text)]
        if missing:
            at = _include_offset(view)
            if at < span.info.start_byte:
                where = self.range_of(view, at, at)
                edits.insert(0, types.TextEdit(range=where, new_text="".join(f"{inc}\n" for inc in missing)))
        caps = self.client_capabilities.workspace
        if caps and caps.workspace_edit and caps.workspace_edit.document_changes and view.is_open:
            return types.WorkspaceEdit(
                document_changes=[
                    types.TextDocumentEdit(
                        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=view.version),
                        edits=list(edits),
                    )
                ]
            )
        return types.WorkspaceEdit(changes={uri: list(edits)})

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Errors outside a handler (a malformed message): one line to the user, details to the log."""
        logger.error("server error (%s): %s", getattr(source, "__name__", source), error)
        try:
            self.tell(f"internal error: {_one_line(error)} (details in {log_path()})", types.MessageType.Error)
        except Exception:
            pass

    def shutdown(self) -> None:  # the end of the connection, however it came
        self.stop_jobs()
        super().shutdown()

    def stop_jobs(self) -> None:
        cancelled = self.jobs.cancel_all()
        if cancelled:
            logger.info("cancelling %d job(s)", len(cancelled))
            self.jobs.wait_all(10.0)
        if self.store_writer is not None:
            try:
                self.store_writer.close()
            except Exception:
                logger.warning("closing the preference store failed", exc_info=True)
            self.store_writer = None
        self.models.unload()


class WriterStore:
    """The pipeline's store calls, run on the writer thread (the job's thread waits for the ids)."""

    def __init__(self, writer: Any) -> None:
        self.writer = writer

    def record_request(self, req: Any) -> str:
        return str(self.writer.submit(lambda s: s.record_request(req)).result(timeout=60))

    def record_candidate(self, request_id: str, cand: Any) -> str:
        return str(self.writer.submit(lambda s: s.record_candidate(request_id, cand)).result(timeout=60))


def _version() -> str:
    """The installed version, read from the distribution's metadata file (importlib.metadata
    would add a tenth of a second to the start)."""
    for entry in sys.path:
        try:
            found = sorted(Path(entry or ".").glob("perfalign-*.dist-info/METADATA"))
        except OSError:
            continue
        for meta in found:
            for line in meta.read_text(encoding="utf-8", errors="replace").splitlines():
                if line.startswith("Version:"):
                    return line.split(":", 1)[1].strip()
    return "0"


def _name(info: Any) -> str:
    return str(getattr(info, "qualified_name", None) or info.name)


def _one_line(exc: BaseException) -> str:
    text = (getattr(exc, "message", None) or str(exc)).strip()
    line = text.splitlines()[0] if text else type(exc).__name__
    return line if len(line) <= 300 else line[:297] + "..."


def _too_large(size: int) -> Refusal:
    return Refusal(
        "too_large",
        f"the file is {size / 1e6:.1f} MB; perfalign works on files up to {MAX_DOCUMENT_BYTES / 1e6:.0f} MB",
    )


def _include_offset(view: DocView) -> int:
    """Byte offset of the line after the file's last ``#include`` (0 when it has none)."""
    last = -1
    for line, start in enumerate(view.index.starts):
        end = view.index.line_end(line)
        if view.index.data[start:end].lstrip().startswith(b"#include"):
            last = line
    if last < 0:
        return 0
    return view.index.starts[last + 1] if last + 1 < len(view.index.starts) else len(view.index.data)


def _live_code(result: FunctionResult) -> str:
    if result.offer is not None and (accepted := result.offer.accepted) is not None:
        return accepted.code
    return result.original_code


def _log_failed_write(future: Any) -> None:
    if not future.cancelled() and future.exception() is not None:
        logger.warning("logging feedback failed: %s", future.exception())


def _guarded_call(ls: PerfalignServer, fn: Callable[[], None]) -> None:
    try:
        fn()
    except Exception as exc:
        logger.error("internal error", exc_info=True)
        ls.tell(f"internal error: {_one_line(exc)} (details in {log_path()})", types.MessageType.Error)


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
            ls.tell(f"internal error in {fn.__name__}: {_one_line(exc)} (details in {log_path()})", types.MessageType.Error)
            return {"status": "error", "message": _one_line(exc)} if default is _RESULT else default

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


@server.feature(types.INITIALIZED)
@guarded()
async def initialized(ls: PerfalignServer, params: types.InitializedParams) -> None:
    threading.Thread(target=_warm_up, name="perfalign-warm-up", daemon=True).start()
    ls.refresh_settings(announce=True)
    await pull_configuration(ls)


def _warm_up() -> None:
    """Load the parsers after answering initialize, so the first code-action request is as fast as the rest."""
    try:
        from perfalign.server import cparse

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
def code_action(ls: PerfalignServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    only = params.context.only
    if only is not None and not any(_wanted(only, k) for k in (KIND_OPTIMIZE, KIND_OPENMP)):
        return []
    try:
        view = ls.view(uri)
    except Refusal as exc:
        if exc.status != "unsupported":
            ls.warn_once(uri, f"{Path(unquote(uri)).name}: {exc.message}")
        return []
    span = ls.function_at(view, params.range.start.line)
    if span is None:
        return []
    name = _name(span.info)
    actions: list[types.CodeAction] = []
    result = ls.results.get(uri, {}).get(name)
    if result is not None and result.offer is not None and same_code(span.info.text, result.original_code):
        lazy = _resolve_edit_lazily(ls)
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
            )
            if not lazy:
                apply.edit = ls.edit_for(uri, result, suggestion)
                if apply.edit is None:
                    continue
            actions.append(apply)
            actions.append(
                types.CodeAction(
                    title=f"Show diff{_label(suggestion)}",
                    kind=kind,
                    command=types.Command(title="Show diff", command=CMD_SHOW_DIFF, arguments=[ref]),
                )
            )
            actions.append(
                types.CodeAction(
                    title=f"Reject suggestion{_label(suggestion)}",
                    kind=kind,
                    command=types.Command(title="Reject suggestion", command=CMD_REJECT, arguments=[ref]),
                )
            )
    job = ls.jobs.running(uri, name)
    target = {"uri": uri, "function": name, "line": span.first_line}
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
    view = ls.view(uri)
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
    name = _name(span.info)
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
    job = Job(uri=uri, function=name, mode=mode, version=view.version)
    # The previous result for this function is replaced: what it still offered goes unused.
    previous = ls.results.get(uri, {}).pop(name, None)
    if previous is not None and previous.offer is not None:
        ls.record_feedback(previous.offer.close())
        ls.publish(uri)
    ls.pending[job.id] = PendingJob(view=view, original_code=span.info.text)
    job.token = await begin_progress(ls, job, arg.get("workDoneToken"))
    if not view.is_open or (view.path is not None and _differs_from_disk(view)):
        ls.log(f"{name}: working on the editor's text, which is not saved")
    ls.jobs.start(job, functools.partial(_work, ls, view, span), functools.partial(on_event, ls), functools.partial(on_done, ls))
    return {"status": "started", "job": job.id, "function": name, "mode": mode}


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
    from perfalign.server.events import Progress
    from perfalign.server.optimize import OptimizeRequest, run_optimize

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
        function=_name(span.info),
        line=span.info.start_line,
        mode=job.mode,
        source="lsp",
        workspace=ls.root,
    )
    yield from run_optimize(request, settings, backend=backend, store=store, cancel=job.cancel)


def cparse_language(path: Path) -> str:
    from perfalign.server import cparse

    return cparse.language_for(path)


def on_event(ls: PerfalignServer, job: Job, event: Any) -> None:
    from perfalign.server.events import Finished, Progress

    if isinstance(event, Progress):
        job.last_fraction, job.last_message = event.fraction, event.message
        if job.token is not None and not job.cancel.is_set():
            ls.work_done_progress.report(
                job.token,
                types.WorkDoneProgressReport(
                    message=event.message, percentage=max(0, min(100, int(event.fraction * 100)))
                ),
            )
    elif isinstance(event, Finished):
        pending = ls.pending.get(job.id)
        if pending is not None:
            pending.finished = event


def on_done(ls: PerfalignServer, job: Job, error: BaseException | None) -> None:
    pending = ls.pending.pop(job.id, None)
    finished = pending.finished if pending else None
    if job.cancel.is_set():
        status, message = "cancelled", f"cancelled {MODE_VERB[job.mode]} {job.function}"
    elif error is not None:
        status = "failed"
        detail = _one_line(error)
        from perfalign.server.lsp_model import ModelLoadError

        if isinstance(error, (ModelLoadError, OSError)) or type(error).__module__.startswith("perfalign."):
            message = f"{MODE_VERB[job.mode]} {job.function} failed: {detail}"
        else:
            message = f"{MODE_VERB[job.mode]} {job.function} failed: {detail} (details in {log_path()})"
    elif finished is None:
        status, message = "failed", f"{MODE_VERB[job.mode]} {job.function} ended without a result"
    else:
        status, message = "", ""
    if job.token is not None:
        ls.work_done_progress.end(job.token, types.WorkDoneProgressEnd(message=message or "done"))
    payload: dict[str, Any] = {"uri": job.uri, "function": job.function, "mode": job.mode, "job": job.id}
    if status == "cancelled":
        ls.tell(message)
        ls.protocol.notify(NOTIFY_JOB_FINISHED, {**payload, "status": status, "summary": message, "suggestions": []})
        return
    if status == "failed":
        ls.tell(message, types.MessageType.Error)
        ls.results.setdefault(job.uri, {})[job.function] = FunctionResult(
            job.uri, job.function, job.mode, "failed", f"perfalign: {message}", pending.original_code if pending else ""
        )
        ls.publish(job.uri)
        ls.protocol.notify(NOTIFY_JOB_FINISHED, {**payload, "status": status, "summary": message, "suggestions": []})
        return
    finish(ls, job, finished, pending, payload)


def finish(ls: PerfalignServer, job: Job, finished: Any, pending: PendingJob | None, payload: dict[str, Any]) -> None:
    original = finished.original_code or (pending.original_code if pending else "")
    # The document may have changed while the job ran: keep the result only if
    # the function still has the body the job worked on (it may have moved).
    try:
        view = ls.view(job.uri)
        span = ls.function_named(view, job.function, original)
    except Refusal:
        span = None
    if span is None or not same_code(span.info.text, original):
        message = f"{job.function} changed while perfalign was {MODE_VERB[job.mode]} it; its results were withdrawn. Run the action again."
        ls.tell(message, types.MessageType.Warning)
        ls.protocol.notify(NOTIFY_JOB_FINISHED, {**payload, "status": "withdrawn", "summary": message, "suggestions": []})
        return
    suggestions = []
    for c in finished.suggestions:
        if not c.verdict.verified:
            continue
        includes, replacement = split_candidate(c.code)
        suggestions.append(
            Suggestion(
                key=ls.next_key(),
                code=replacement,
                title=_apply_title(c.verdict),
                candidate_id=c.candidate_id,
                diff=c.diff,
                speedup=c.verdict.speedup,
                includes=includes,
            )
        )
    offer = Offer(job.uri, job.function, job.mode, original, suggestions) if suggestions else None
    if offer is not None:
        status, summary = "verified", _found_summary(job.function, offer)
    else:
        status = "failed" if getattr(finished, "outcome", "") == "error" else "none"
        summary = f"perfalign: {finished.summary or f'no verified rewrite of {job.function}'}"
    ls.results.setdefault(job.uri, {})[job.function] = FunctionResult(
        job.uri, job.function, job.mode, status, summary, original, offer
    )
    ls.publish(job.uri)
    ls.tell(summary.removeprefix("perfalign: "), types.MessageType.Warning if status == "failed" else types.MessageType.Info)
    ls.protocol.notify(
        NOTIFY_JOB_FINISHED,
        {
            **payload,
            "status": status,
            "summary": summary,
            "suggestions": [
                {"suggestion": s.key, "title": s.title, "speedup": s.speedup, "candidateId": s.candidate_id}
                for s in suggestions
            ],
        },
    )


def _label(suggestion: Suggestion) -> str:
    """Tells apart the Show diff / Reject actions of several suggestions."""
    return f" ({suggestion.speedup:.1f}× rewrite)" if suggestion.speedup is not None else ""


def _apply_title(verdict: Any) -> str:
    title = "Apply verified rewrite"
    if verdict.speedup is None:
        return title
    title += f": {verdict.speedup:.1f}× faster"
    details = []
    if verdict.ci95 is not None:
        details.append(f"95% CI {verdict.ci95[0]:.1f}–{verdict.ci95[1]:.1f}×")
    if verdict.threads and verdict.threads > 1:
        details.append(f"{verdict.threads} threads")
    return title + (f" ({', '.join(details)})" if details else "")


def _found_summary(function: str, offer: Offer) -> str:
    offered = offer.offered
    if not offered:
        return f"perfalign: no suggestion left for {function}"
    best = offered[0]
    count = f"{len(offered)} verified rewrites" if len(offered) > 1 else "a verified rewrite"
    return f"perfalign: {count} of {function}; best {best.title.split(': ', 1)[-1]}. Use the code action to apply it."


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
    elif result.offer is not None:
        # The client applied the action's edit first; the document must now hold the rewrite.
        view = ls.view(uri)
        span = ls.function_named(view, result.function, suggestion.code)
        if span is None or not same_code(span.info.text, suggestion.code):
            if suggestion.state is State.OFFERED and span is not None and same_code(span.info.text, result.original_code):
                raise Refusal("not_applied", "the editor did not apply the rewrite")
    if result.offer is not None:
        ls.record_feedback(result.offer.apply(key))
        if result.offer.accepted is not None:
            result.status, result.summary = "applied", f"perfalign: applied a verified rewrite of {result.function}"
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
        result.status = "none"
        result.summary = f"perfalign: every suggestion for {result.function} was rejected"
    else:
        result.summary = _found_summary(result.function, result.offer)
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
    diff = suggestion.diff or _unified(result.original_code, suggestion.code, result.function)
    if ls.diff_notification:
        ls.protocol.notify(
            NOTIFY_SHOW_DIFF,
            {"uri": uri, "original": result.original_code, "candidate": suggestion.code, "title": title},
        )
        return {"status": "shown", "diff": diff}
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
        ls.tell(f"diff of {title} written to {path}")
    return {"status": "written", "path": str(path), "diff": diff}


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name)[:80]


def _unified(original: str, candidate: str, name: str) -> str:
    import difflib

    return "".join(
        difflib.unified_diff(
            original.splitlines(keepends=True), candidate.splitlines(keepends=True), f"{name} (original)", f"{name} (rewrite)"
        )
    )


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
    from dataclasses import asdict

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
        "settings": asdict(ls.settings),
        "settingsErrors": ls.effective.errors,
        "configFile": str(ls.effective.config_file) if ls.effective.config_file else None,
        "model": ls.models.loaded_name,
        "heavyModules": sorted(m for m in ("torch", "transformers", "llama_cpp") if m in sys.modules),
        "store": str(Path(ls.settings.db_path).expanduser()) if ls.settings.db_path else str(home_dir() / "perfalign.db"),
        "storeProblem": ls.store_problem or (ls.store_writer.disabled_reason if ls.store_writer is not None else None),
        "jobs": [j.describe() for j in ls.jobs.jobs.values() if not only_uri or j.uri == only_uri],
        "results": suggestions,
        "log": str(log_path()),
    }
    ls.log(f"report: {report}")
    return report

