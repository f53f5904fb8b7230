"""The language server's state: documents as parsed, job results, the store and the model.

:class:`PerfalignServer` holds everything the handlers in ``lsp`` share; the
handlers themselves are module functions there. Editor-facing state is only
touched on the event loop; worker threads hand work back through ``_post``.
"""
from __future__ import annotations

import asyncio
import logging
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from ..errors import SourceFileError, one_line
from ..files import MAX_SOURCE_BYTES, READ_TIMEOUT_S, read_source, start_reading, timeout_error
from ..paths import home_dir
from ._config import EffectiveSettings, effective_settings
from ._feedback import Logged, Offer, Suggestion
from ._hot import HOT_CODE, HotHere, HotIndex
from ._io import PerfalignProtocol, serve_socket, serve_stream
from ._jobs import JobManager, JobState
from ._model_cache import ModelCache
from ._text import UTF8, UTF16, UTF32, LineIndex, NotUtf8, same_code, squashed

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

MAX_DOCUMENT_BYTES = MAX_SOURCE_BYTES
# Refusals about the file itself; their message names the file.
FILE_PROBLEMS = frozenset({"not_found", "not_regular", "too_large", "unreadable", "timeout"})
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
    status: JobState
    summary: str
    original_code: str
    offer: Offer | None = None
    samples: int = 0  # candidates the job sampled (0: not known)


@dataclass
class PendingJob:
    """What the server remembers about a running job beyond the job manager's record."""

    original_code: str  # the function's text when the job started
    finished: Any = None  # the pipeline's Finished event
    offer: Offer | None = None  # suggestions offered before the job's end, with what the user did with them


class PerfalignServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "perfalign",
            _version(),
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=PerfalignProtocol,
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
        self.hot = HotIndex()
        self.hot_uris: set[str] = set()  # documents showing hot-function diagnostics

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
                from ..store import log_writer

                writer = log_writer(settings)
                if isinstance(writer, str):
                    self.store_problem = writer
                    self._post(lambda: self.tell(self.store_problem or "", types.MessageType.Warning))
                else:
                    self.store_writer = writer
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

    async def load(self, uri: str) -> DocView:
        """:meth:`view`, reading a document that is not open on a thread of its own, within a time limit.

        The event loop never waits on the file system: a named pipe, a device or
        ``/proc/kmsg`` is refused before it is opened, and a read that hangs is
        abandoned after ``READ_TIMEOUT_S``.
        """
        path = to_fs_path(uri)
        if self.workspace.text_documents.get(unquote(uri)) is not None or path is None:
            return self.view(uri)
        future = start_reading(path, MAX_DOCUMENT_BYTES)
        try:
            data = await asyncio.wait_for(asyncio.wrap_future(future), READ_TIMEOUT_S)
        except TimeoutError:
            raise Refusal("timeout", timeout_error(path, READ_TIMEOUT_S).message) from None
        except SourceFileError as exc:
            raise _file_refusal(exc, uri) from None
        return self.view(uri, data)

    def view(self, uri: str, data: bytes | None = None) -> DocView:
        """The document as perfalign sees it; raises :class:`Refusal` with what is wrong.

        A document that is not open is read from disk (``data``, when :meth:`load` read it already).
        """
        from .. import cparse

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
            if path is None:
                raise Refusal("not_found", f"{uri} is neither open in the editor nor a file on disk")
            if data is None:
                try:
                    data = read_source(path, MAX_DOCUMENT_BYTES)
                except SourceFileError as exc:
                    raise _file_refusal(exc, uri) from None
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
        named = [s for s in self.spans(view) if function_name(s.info) == name]
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

    def hot_in(self, view: DocView) -> dict[str, HotHere]:
        """The document's functions that the workspace's kept profile ranks hot (bodies unchanged), by name."""
        return self.hot.in_document(self.root, view.path, view.functions)

    def hot_diagnostic(self, view: DocView, span: Span, hot: HotHere) -> types.Diagnostic:
        return types.Diagnostic(
            range=self.header_range(view, span),
            message=hot.message,
            severity=types.DiagnosticSeverity.Information,
            source=SOURCE,
            code=HOT_CODE,
            data={"function": hot.function.name, "rank": hot.rank, "self": hot.function.self_share,
                  "inclusive": hot.function.inclusive_share},
        )

    def publish(self, uri: str) -> None:
        diagnostics: list[types.Diagnostic] = []
        results = self.results.get(uri, {})
        try:
            view: DocView | None = self.view(uri)
        except Refusal:
            view = None
        if view is not None:
            hot_here = self.hot_in(view)
            for span in self.spans(view) if hot_here else []:
                hot = hot_here.get(function_name(span.info))
                if hot is not None:
                    diagnostics.append(self.hot_diagnostic(view, span, hot))
        if results:
            if view is not None:
                for result in results.values():
                    if result.status is JobState.APPLIED:
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
        if any(d.code == HOT_CODE for d in diagnostics):
            self.hot_uris.add(uri)
        else:
            self.hot_uris.discard(uri)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics))

    def document_changed(self, uri: str) -> None:
        """Follow the functions that have results: dismissed, accepted, edited after accept."""
        results = self.results.get(uri)
        if not results:
            if uri in self.hot_uris or self.hot.mentions(self.root, to_fs_path(uri)):
                self.publish(uri)  # a hot function's diagnostic moves with its lines, and goes when its body changes
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
                result.status, result.summary = JobState.APPLIED, f"perfalign: applied a verified rewrite of {name}"
                self.end_job_of_applied(uri, name)
            else:
                result.status, result.summary = JobState.VERIFIED, found_summary(name, result.offer)
        # Positions move with every edit: diagnostics are published again each time.
        self.publish(uri)

    def document_closed(self, uri: str) -> None:
        for job in self.jobs.cancel(self.jobs.for_uri(uri)):
            logger.info("cancelled %s: %s was closed", job.id, uri)
        for result in self.results.pop(uri, {}).values():
            if result.offer is not None:
                self.record_feedback(result.offer.close())
        self._views.pop(uri, None)
        self.hot_uris.discard(uri)
        self.warned = {w for w in self.warned if w[0] != uri}
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def end_job_of_applied(self, uri: str, function: str) -> None:
        """A suggestion offered while its job runs was applied: the rest of the job is moot, so it stops."""
        job = self.jobs.running(uri, function)
        pending = self.pending.get(job.id) if job is not None else None
        if job is not None and pending is not None and pending.offer is not None and pending.offer.accepted is not None:
            self.jobs.cancel([job])

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
            self.tell(f"internal error: {one_line(error)} (details in {log_path()})", types.MessageType.Error)
        except Exception:
            pass

    # -- the connection ---------------------------------------------------------
    # pygls' own loops stop reading after one malformed header; these read through ``_io``.

    def start_io(self, stdin: Any = None, stdout: Any = None) -> None:
        """Serve over stdio until the client closes it or asks the server to exit."""
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(serve_stream(self.protocol, self._stop_event, stdin or sys.stdin.buffer))
        except BrokenPipeError:
            logger.error("the connection to the client is lost; stopping")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def start_tcp(self, host: str, port: int) -> None:
        """Serve one client at a time on a TCP socket."""
        self._stop_event = stop = threading.Event()

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.protocol.set_writer(writer)  # type: ignore[arg-type]
            await serve_socket(self.protocol, stop, reader)
            self.shutdown()

        async def listen() -> None:
            self._server = await asyncio.start_server(connection, host, port)
            logger.info("serving on %s:%s", host, port)
            async with self._server:
                await self._server.serve_forever()

        try:
            asyncio.run(listen())
        except asyncio.CancelledError:
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


def function_name(info: Any) -> str:
    return str(getattr(info, "qualified_name", None) or info.name)


def _file_refusal(exc: SourceFileError, uri: str) -> Refusal:
    if exc.status == "not_found":
        return Refusal("not_found", f"{uri} is neither open in the editor nor a file on disk")
    return Refusal(exc.status, exc.message)


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
        ls.tell(f"internal error: {one_line(exc)} (details in {log_path()})", types.MessageType.Error)


def suggestion_label(suggestion: Suggestion) -> str:
    """Tells apart the Show diff / Reject actions of several suggestions."""
    return f" ({suggestion.speedup:.1f}× rewrite)" if suggestion.speedup is not None else ""


def apply_title(verdict: Any, strategy: str = "") -> str:
    """``Apply verified rewrite: loop interchange, 3.2× faster (95% CI 3.0–3.4×)``."""
    title = "Apply verified rewrite"
    if verdict.speedup is None:
        return f"{title}: {strategy}" if strategy else title
    by = f" {strategy}," if strategy else ""
    head = ((getattr(verdict, "scaling", None) or {}).get("headline")) or {}
    details = []
    if head.get("target"):
        # The user gave the size they care about: the headline is the speedup there.
        title += f":{by} {head['speedup']:.1f}× faster at your size n = {head['size']:,}"
        details.append(f"{verdict.speedup:.1f}× at n = {verdict.problem_size:,}")
    else:
        title += f":{by} {verdict.speedup:.1f}× faster"
    if verdict.ci95 is not None:
        details.append(f"95% CI {verdict.ci95[0]:.1f}–{verdict.ci95[1]:.1f}×")
    if verdict.threads and verdict.threads > 1:
        details.append(f"{verdict.threads} threads")
    flags = getattr(verdict, "flags", None)
    if flags:
        details.append("at " + " ".join(flags))
    alone = getattr(verdict, "compiler_alone", None)
    if alone is not None:
        details.append(f"-O3 -march=native alone {alone:.1f}×")
    return title + (f" ({', '.join(details)})" if details else "")


def found_summary(function: str, offer: Offer, *, checking: bool = False) -> str:
    offered = offer.offered
    if not offered:
        return f"perfalign: no suggestion left for {function}"
    best = offered[0]
    count = f"{len(offered)} verified rewrites" if len(offered) > 1 else "a verified rewrite"
    later = " (still checking the other candidates)" if checking else ""
    return (f"perfalign: {count} of {function}{later}; best {best.title.split(': ', 1)[-1]}. Use the code action "
            f"to apply it.")
