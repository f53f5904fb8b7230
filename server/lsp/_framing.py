"""Reading LSP messages from a byte stream without losing the way.

An LSP message is a header block (``Content-Length: N`` and optional other
fields, each line ending in ``\\r\\n``, then an empty line) followed by N bytes
of JSON. :class:`Framer` cuts a stream into messages and checks each one: a
header that is malformed (``Content-Length: abc``, ``-5``, missing), a body
that is not the JSON object its length says (longer, shorter, not JSON) or
bytes that are no message at all become a :class:`Problem` with a one-line
reason and, when the bad message can still be read, its request id. A body
nested too deeply for the JSON decoder (a hundred thousand arrays inside each
other) is such a problem too: its request id and method are read by a scan of
the top-level object that does not recurse, so the request is answered. The framer
then skips to the next well-formed header and goes on, so one bad message
never ends the session.

It does no input or output: the server feeds it the bytes it reads and calls
:meth:`Framer.flush` when the stream has been quiet for a moment, so a bad
message is answered without waiting for the next one.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

MAX_BODY_BYTES = 64 * 1024 * 1024
MAX_HEADER_BYTES = 8192

_HEADER_START = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)
_HEADER_END = re.compile(rb"\r?\n\r?\n")
_TOKEN = rb"[!#$%&'*+.^_`|~0-9A-Za-z-]"
_HEADER_LINE = re.compile(rb"(" + _TOKEN + rb"+)[ \t]*:[ \t]*(.*?)[ \t]*")
_FIELD_NAME = re.compile(_TOKEN + rb"*\Z")
_WHITESPACE = b" \t\r\n"
# What a scan of a too-deep body looks for: the next run of brackets or string, a string, a member's colon.
_STRUCTURE = re.compile(r'[\[{]+|[\]}]+|"')
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_COLON = re.compile(r"\s*:\s*")


@dataclass(frozen=True)
class Message:
    """One well-formed message: its JSON object and its size in bytes."""

    data: dict[str, Any]
    size: int


@dataclass(frozen=True)
class Problem:
    """A message that could not be read as sent: why, and the request it carried when that can be told."""

    reason: str
    request_id: int | str | None = None
    method: str | None = None


Event = Message | Problem


class Framer:
    """Cuts a byte stream into :class:`Message` and :class:`Problem` events, recovering after bad input."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._length: int | None = None  # the body length of a well-formed header just read
        self._junk: bytearray | None = None  # bytes being skipped up to the next header
        self._junk_reason = ""
        self._declared: int | None = None  # the Content-Length of the message whose body is being skipped

    @property
    def holding(self) -> bool:
        """Whether bytes wait that only more input or :meth:`flush` can settle."""
        return self._junk is not None or self._length is not None

    def feed(self, data: bytes) -> list[Event]:
        """The events that ``data`` completes."""
        self._buf += data
        events: list[Event] = []
        while (event := self._step()) is not None:
            events.append(event)
        return events

    def flush(self) -> list[Event]:
        """The stream is quiet: settle what is held back (a bad message waiting for its end)."""
        events: list[Event] = []
        if self._length is not None:
            body = bytes(self._buf)
            obj, end = _decode_prefix(body) if body.rstrip(_WHITESPACE).endswith(b"}") else (None, 0)
            if obj is None:
                return events  # a large body still arriving
            del self._buf[:end]
            length, self._length = self._length, None
            events.append(_problem(f"its body is {end} bytes, shorter than the Content-Length of {length} says", obj))
        if self._junk is not None:
            self._junk += self._buf
            self._buf = bytearray()
            events.append(self._end_junk())
        while (event := self._step()) is not None:
            events.append(event)
        return events

    # -- the steps

    def _step(self) -> Event | None:
        if self._junk is not None:
            return self._skip()
        if self._length is not None:
            return self._body()
        return self._header()

    def _header(self) -> Event | None:
        start = len(self._buf) - len(self._buf.lstrip(_WHITESPACE))
        if start:
            del self._buf[:start]
        if not self._buf:
            return None
        name = self._buf.split(b":", 1)[0] if b":" in self._buf else self._buf
        name = bytes(name[:101]).rstrip(b" \t")
        if len(name) > 100 or not _FIELD_NAME.match(name):
            self._start_junk("", None)  # not a header: skip to the next one
            return self._skip()
        end = _HEADER_END.search(self._buf)
        if end is None:
            if len(self._buf) > MAX_HEADER_BYTES:
                self._start_junk(f"a header longer than {MAX_HEADER_BYTES} bytes", None)
                return self._skip()
            return None
        raw = bytes(self._buf[: end.end()])
        block = raw[: end.start()]
        del self._buf[: end.end()]
        length, problem = _content_length(block)
        if problem is not None:
            restart = _last_header_start(block)
            if restart:
                # Another header began before this one ended: the bad one has no body, the next one is read.
                self._buf[:0] = raw[restart:]
                if "twice" in problem:
                    problem = "its header is not ended by an empty line before the next header"
                return Problem(problem)
            self._start_junk(problem, None)
            return self._skip()
        assert length is not None
        if length == 0:
            return Problem("its header says Content-Length: 0, an empty message")
        self._length = length
        return self._body()

    def _body(self) -> Event | None:
        length = self._length
        assert length is not None
        if len(self._buf) < length:
            return None
        body = bytes(self._buf[:length])
        del self._buf[:length]
        self._length = None
        try:
            obj = json.loads(body)
        except RecursionError:
            return _too_deep(body)
        except ValueError:
            obj = None
        else:
            if isinstance(obj, dict):
                return Message(obj, length)
            return Problem("its body is JSON but not an object, so not a JSON-RPC message")
        found, end = _decode_prefix(body)
        if found is not None:
            # The body ended before its length: what follows belongs to the next message.
            self._buf[:0] = body[end:]
            return _problem(f"its body is {end} bytes, shorter than the Content-Length of {length} says", found)
        self._start_junk("", length)
        self._junk = bytearray(body)
        return self._skip()

    def _start_junk(self, reason: str, declared: int | None) -> None:
        self._junk, self._junk_reason, self._declared = bytearray(), reason, declared

    def _skip(self) -> Event | None:
        """Move bytes into the junk up to the next header; report the junk once a header or its end is found."""
        assert self._junk is not None
        found = _HEADER_START.search(self._buf)
        if found is not None:
            self._junk += self._buf[: found.start()]
            del self._buf[: found.start()]
            return self._end_junk()
        keep = len(b"content-length") + 1  # a header may be cut between two reads
        if len(self._buf) > keep:
            self._junk += self._buf[:-keep]
            del self._buf[:-keep]
        whole = bytes(self._junk) + bytes(self._buf)
        if whole.rstrip(_WHITESPACE).endswith(b"}") and (obj := _decode_whole(whole)) is not None:
            # The bad message is complete JSON: answer it now rather than at the next message.
            self._junk += self._buf
            self._buf = bytearray()
            return self._end_junk(obj)
        return None

    def _end_junk(self, obj: Any = None) -> Problem:
        junk = bytes(self._junk or b"")
        reason, declared = self._junk_reason, self._declared
        self._junk, self._junk_reason, self._declared = None, "", None
        if obj is None:
            obj = _decode_whole(junk)
            if obj is None:
                obj, _ = _decode_prefix(junk)
        if declared is not None:
            if obj is not None and len(junk.rstrip(_WHITESPACE)) > declared:
                reason = f"its body is longer than the Content-Length of {declared} says"
            else:
                reason = f"its body is not the {declared} bytes of JSON its Content-Length says"
        elif not reason:
            reason = f"{len(junk)} bytes that are not an LSP message (no Content-Length header before them)"
        return _problem(reason, obj)


def _content_length(block: bytes) -> tuple[int | None, str | None]:
    """The Content-Length of a header block, or why it has none that can be used."""
    length: int | None = None
    for raw in re.split(rb"\r?\n", block):
        line = _HEADER_LINE.fullmatch(raw)
        if line is None:
            return None, f"its header line {_show(raw)} is not 'Name: value'"
        if line.group(1).lower() != b"content-length":
            continue
        value = line.group(2)
        if not value.isdigit():
            return None, f"its header says Content-Length: {_show(value, quote=False)}, which is not a number of bytes"
        if length is not None:
            return None, "its header gives Content-Length twice"
        length = int(value)
        if length > MAX_BODY_BYTES:
            return None, f"its header says Content-Length: {length}, above the {MAX_BODY_BYTES // 2**20} MiB accepted"
    if length is None:
        return None, "its header has no Content-Length"
    return length, None


def _last_header_start(block: bytes) -> int:
    """Where the last Content-Length line inside a header block starts (0 when only at its start)."""
    starts = [m.start() for m in _HEADER_START.finditer(block)
              if m.start() > 0 and block[m.start() - 1 : m.start()] == b"\n"]
    return starts[-1] if starts else 0


def _decode_whole(data: bytes) -> dict[str, Any] | None:
    try:
        obj = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def _decode_prefix(data: bytes) -> tuple[dict[str, Any] | None, int]:
    """A JSON object at the start of ``data`` and where it ends, or (None, 0)."""
    text = data.decode("utf-8", errors="replace")
    stripped = text.lstrip()
    try:
        obj, end = json.JSONDecoder().raw_decode(stripped)
    except (ValueError, RecursionError):
        return None, 0
    if not isinstance(obj, dict):
        return None, 0
    consumed = text[: len(text) - len(stripped) + end]
    return obj, len(consumed.encode("utf-8", errors="replace"))


def _too_deep(body: bytes) -> Problem:
    """The problem of a body that nests too deeply to decode, answered to the request it carries."""
    return _problem("its body nests JSON arrays or objects too deeply to be read", _top_level_scalars(body))


def _top_level_scalars(body: bytes) -> dict[str, Any]:
    """The members of the top-level JSON object in ``body`` whose values are not arrays or objects.

    A loop over the brackets and strings, keeping a count of the depth: it reads
    a body of any depth without recursion. Stops at the first thing that is not JSON.
    """
    text = body.decode("utf-8", errors="replace")
    decoder = json.JSONDecoder()
    found: dict[str, Any] = {}
    depth = 0
    at = 0
    while (mark := _STRUCTURE.search(text, at)) is not None:
        at = mark.start()
        char = text[at]
        if char in "[{":  # a run of openings, counted at once
            depth += mark.end() - at
            at = mark.end()
            continue
        if char in "]}":
            depth -= mark.end() - at
            at = mark.end()
            if depth <= 0:
                break
            continue
        string = _STRING.match(text, at)
        if string is None:
            break
        at = string.end()
        colon = _COLON.match(text, at) if depth == 1 else None
        if colon is None:
            continue
        at = colon.end()
        if text[at : at + 1] in ("[", "{", ""):
            continue
        try:
            name = json.loads(string.group())
            value, at = decoder.raw_decode(text, at)
        except ValueError:
            break
        found.setdefault(name, value)
    return found


def _problem(reason: str, obj: Any) -> Problem:
    """A problem with the request id and method of the message it spoiled, when they can be read."""
    if not isinstance(obj, dict):
        return Problem(reason)
    method = obj.get("method") if isinstance(obj.get("method"), str) else None
    ident = obj.get("id")
    if isinstance(ident, bool) or not isinstance(ident, (int, str)) or method is None:
        ident = None  # a notification, or a response from the client: nothing to answer
    return Problem(reason, ident, method)


def _show(raw: bytes, quote: bool = True) -> str:
    text = raw[:40].decode("utf-8", errors="replace") + ("…" if len(raw) > 40 else "")
    return repr(text) if quote else text
