"""The server's message loop: bytes in, messages out to pygls, every bad message answered.

pygls' own loop gives up on the stream after one malformed header and drops a
request whose parameters do not fit the protocol's types without answering
it. This loop reads the bytes itself, cuts them into messages with
:class:`~._framing.Framer` and hands each well-formed message to pygls'
protocol, which does everything else (dispatch, responses, progress). What
cannot be handled is answered: a request gets a JSON-RPC error with the
reason (``InvalidParams`` for parameters of the wrong shape, ``InvalidRequest``
for a message that could not be read as sent), anything without an id that
can be told gets a ``window/logMessage``; each is one line in the server log.
"""
from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable
from typing import Any, BinaryIO

import cattrs
from cattrs.v import format_exception
from lsprotocol import types
from pydantic.alias_generators import to_camel
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage, LanguageServerProtocol

from ._framing import Framer, Message, Problem

logger = logging.getLogger("perfalign.lsp")

# How long the stream must be quiet before a bad message waiting for its end is answered.
QUIET_S = 0.05
READ_CHUNK = 1 << 16


class BadParams(Exception):
    """A message whose parameters do not have the protocol's shape: the reason, one line."""


class PerfalignProtocol(LanguageServerProtocol):
    """pygls' protocol, with messages turned into the protocol's types here so that a bad one can be answered."""

    def structure_message(self, data: Any) -> Any:
        if not isinstance(data, dict) or "jsonrpc" not in data:
            return data
        if "id" in data and "error" in data:
            kind: Any = types.ResponseErrorMessage
        elif "id" in data and "method" in data:
            kind = self.get_message_type(str(data["method"])) or JsonRPCRequestMessage
        elif "id" in data:
            kind = self._result_types.pop(data["id"], None) or JsonRPCResponseMessage
        else:
            kind = self.get_message_type(str(data.get("method", ""))) or JsonRPCNotification
        try:
            return self._converter.structure(data, kind)
        except Exception as exc:
            raise BadParams(_reason(exc)) from exc


def _reason(exc: Exception) -> str:
    """What is wrong with a message's fields, in one line: ``params.range.start: ... but was -1``."""
    if not isinstance(exc, (cattrs.BaseValidationError, ValueError, TypeError, KeyError)):
        return f"cannot read the message ({type(exc).__name__})"

    def describe(error: BaseException, kind: Any) -> str:
        if isinstance(error, ValueError) and str(error):
            return str(error)
        return format_exception(error, kind)

    try:
        if isinstance(exc, cattrs.BaseValidationError):
            found = cattrs.transform_error(exc, format_exception=describe)
        else:
            found = [str(exc)]
    except Exception:
        found = [str(exc)]
    parts = []
    for item in found[:3]:
        what, _, where = item.rpartition(" @ $.")
        if not _:
            parts.append(item)
            continue
        path = ".".join(to_camel(p) if "_" in p else p for p in where.split("."))
        parts.append(f"{path}: {what}")
    return "; ".join(parts)[:300]


class _StreamReader:
    """Reads a binary stream on a thread of its own and hands the chunks to the event loop."""

    def __init__(self, stream: BinaryIO, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[bytes]) -> None:
        self._stream = stream
        self._loop = loop
        self._queue = queue
        try:
            self._fd: int | None = stream.fileno()
        except (AttributeError, OSError, ValueError):
            self._fd = None
        # A daemon thread: a read that never returns must not keep the process alive at exit.
        threading.Thread(target=self._run, name="perfalign-stdin", daemon=True).start()

    def _read(self) -> bytes:
        if self._fd is not None:
            return os.read(self._fd, READ_CHUNK)
        read1 = getattr(self._stream, "read1", None)
        return bytes(read1(READ_CHUNK) if read1 is not None else self._stream.read(1))

    def _run(self) -> None:
        while True:
            try:
                chunk = self._read()
            except OSError as exc:
                logger.warning("reading the client's messages failed: %s", exc)
                chunk = b""
            try:
                self._loop.call_soon_threadsafe(self._queue.put_nowait, chunk)
            except RuntimeError:  # the loop is closed: the server has ended
                return
            if not chunk:
                return


async def serve(
    protocol: LanguageServerProtocol,
    stop: threading.Event,
    next_chunk: Callable[[], Any],
) -> None:
    """Read messages until the stream ends or ``stop`` is set; hand each to ``protocol``, answer each bad one."""
    framer = Framer()
    while not stop.is_set():
        if framer.holding:
            try:
                chunk = await asyncio.wait_for(next_chunk(), QUIET_S)
            except TimeoutError:
                for event in framer.flush():
                    handle(protocol, event)
                    await asyncio.sleep(0)
                continue
        else:
            chunk = await next_chunk()
        if not chunk:
            for event in framer.flush():
                handle(protocol, event)
            break
        for event in framer.feed(chunk):
            handle(protocol, event)
            # Let the handler just started run first, as when each message is read on its own:
            # messages take effect in the order they were sent.
            await asyncio.sleep(0)
            if stop.is_set():
                break


async def serve_stream(protocol: LanguageServerProtocol, stop: threading.Event, stream: BinaryIO) -> None:
    """:func:`serve` on a blocking binary stream (the server's stdin)."""
    queue: asyncio.Queue[bytes] = asyncio.Queue()
    _StreamReader(stream, asyncio.get_running_loop(), queue)
    await serve(protocol, stop, queue.get)


async def serve_socket(protocol: LanguageServerProtocol, stop: threading.Event, reader: asyncio.StreamReader) -> None:
    """:func:`serve` on an asyncio stream (a TCP connection)."""
    await serve(protocol, stop, lambda: reader.read(READ_CHUNK))


def handle(protocol: LanguageServerProtocol, event: Message | Problem) -> None:
    """Hand one message to pygls, or answer why it cannot be."""
    if isinstance(event, Problem):
        _answer(protocol, event.request_id, types.ErrorCodes.InvalidRequest,
                f"perfalign could not read a message ({event.reason}); it was skipped", event.method)
        return
    data = event.data
    ident, method = _request_of(data)
    if data.get("jsonrpc") != "2.0":
        _answer(protocol, ident, types.ErrorCodes.InvalidRequest,
                "perfalign could not read a message: it is not JSON-RPC 2.0 (\"jsonrpc\": \"2.0\" is missing)", method)
        return
    try:
        message = protocol.structure_message(data)
    except BadParams as exc:
        what = method or "a message"
        _answer(protocol, ident, types.ErrorCodes.InvalidParams, f"invalid params for {what}: {exc}", method)
        return
    try:
        protocol.handle_message(message)
    except Exception as exc:
        logger.error("handling %s failed: %s", method or "a message", exc, exc_info=True)
        if ident is not None:
            _answer(protocol, ident, types.ErrorCodes.InternalError, f"internal error: {exc}", method)


def _request_of(data: dict[str, Any]) -> tuple[int | str | None, str | None]:
    """The id and method of a request (None for notifications and responses: nothing to answer)."""
    method = data.get("method") if isinstance(data.get("method"), str) else None
    ident = data.get("id")
    if method is None or isinstance(ident, bool) or not isinstance(ident, (int, str)):
        return None, method
    return ident, method


def _answer(protocol: LanguageServerProtocol, ident: int | str | None, code: types.ErrorCodes, message: str,
            method: str | None) -> None:
    """An error response to a request; a log message in the editor when there is no request to answer."""
    logger.warning("%s%s", message, f" (request {ident!r})" if ident is not None else "")
    try:
        if ident is not None:
            protocol._send_response(ident, error=types.ResponseError(code=int(code), message=message))
        else:
            protocol.notify(types.WINDOW_LOG_MESSAGE,
                            types.LogMessageParams(type=types.MessageType.Warning, message=f"perfalign: {message}"))
    except Exception:
        logger.warning("could not tell the client about a bad message", exc_info=True)
