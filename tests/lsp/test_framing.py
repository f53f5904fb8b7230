"""The framing reader alone: every malformed message becomes one problem, and the next message is read whole,
whether the bytes arrive at once, in two writes or one byte at a time."""
from __future__ import annotations

import json

import pytest

from perfalign.server.lsp._framing import Framer, Message, Problem

BAD = {"jsonrpc": "2.0", "id": 5, "method": "textDocument/codeAction", "params": {}}
BODY = json.dumps(BAD).encode()
GOOD = json.dumps({"jsonrpc": "2.0", "id": 99, "method": "shutdown"}).encode()
NEXT = b"Content-Length: %d\r\n\r\n" % len(GOOD) + GOOD

CASES = {
    "length not a number": (b"Content-Length: abc\r\n\r\n" + BODY, "not a number of bytes", 5),
    "negative length": (b"Content-Length: -5\r\n\r\n" + BODY, "not a number of bytes", 5),
    "no length": (b"Content-Type: x\r\n\r\n" + BODY, "no Content-Length", 5),
    "longer": (b"Content-Length: 20\r\n\r\n" + BODY, "longer than the Content-Length of 20", 5),
    "shorter": (b"Content-Length: %d\r\n\r\n" % (len(BODY) + 10) + BODY, "shorter than the Content-Length", 5),
    "garbage": (b"hello world\r\n\r\n", "not an LSP message", None),
    "header without its empty line": (b"Content-Length: 10\r\n", "not ended by an empty line", None),
    "zero length": (b"Content-Length: 0\r\n\r\n", "an empty message", None),
    "not JSON": (b"Content-Length: 5\r\n\r\nabcde", "not the 5 bytes of JSON", None),
    "JSON but no object": (b"Content-Length: 2\r\n\r\n[]", "not an object", None),
    "too large": (b"Content-Length: 99999999999\r\n\r\n{}", "above the 64 MiB accepted", None),
}


def events(chunks: list[bytes]) -> list[Message | Problem]:
    framer = Framer()
    out: list[Message | Problem] = []
    for chunk in chunks:
        out += framer.feed(chunk)
    return out + framer.flush()


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("split", ["at once", "in two writes", "byte by byte"])
def test_one_problem_then_the_next_message_whole(name: str, split: str) -> None:
    data, reason, ident = CASES[name]
    if split == "at once":
        chunks = [data + NEXT]
    elif split == "in two writes":
        chunks = [data, NEXT]
    else:
        chunks = [bytes([b]) for b in data + NEXT]
    found = events(chunks)
    assert len(found) == 2, found
    problem, message = found
    assert isinstance(problem, Problem) and reason in problem.reason and problem.request_id == ident
    assert isinstance(message, Message) and message.data["id"] == 99


def test_a_bad_message_alone_is_settled_when_the_input_goes_quiet() -> None:
    framer = Framer()
    assert framer.feed(b"Content-Length: %d\r\n\r\n" % (len(BODY) + 50) + BODY) == []
    assert framer.holding
    (problem,) = framer.flush()
    assert isinstance(problem, Problem) and "shorter" in problem.reason and problem.request_id == 5
    assert not framer.holding


def test_well_formed_messages_are_delivered_at_once_with_other_header_fields() -> None:
    framer = Framer()
    header = b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" % len(GOOD)
    found = framer.feed(header + GOOD + NEXT)
    assert [type(e) for e in found] == [Message, Message] and not framer.holding


def deep(depth: int, ident: object = 5, opener: str = "[") -> bytes:
    """A request whose params nest ``depth`` arrays (or objects) deep, its id and method after them."""
    closer = "]" if opener == "[" else "}"
    inner = (opener if opener == "[" else '{"a":') * depth + closer * depth
    return ('{"jsonrpc": "2.0", "params": ' + inner + ', "method": "perfalign/x", "id": '
            + json.dumps(ident) + "}").encode()


@pytest.mark.parametrize("opener", ["[", "{"])
@pytest.mark.parametrize("depth", [100_000, 5_000])
def test_a_body_too_deep_to_decode_is_a_problem_with_its_request_id(depth: int, opener: str) -> None:
    body = deep(depth, "deep \"one\"", opener)
    framed = b"Content-Length: %d\r\n\r\n" % len(body) + body
    for chunks in ([framed + NEXT], [framed[:1000], framed[1000:], NEXT]):
        problem, message = events(chunks)
        assert isinstance(problem, Problem) and "too deeply" in problem.reason, problem
        assert problem.request_id == 'deep "one"' and problem.method == "perfalign/x"
        assert isinstance(message, Message) and message.data["id"] == 99


def test_a_body_too_deep_without_a_length_that_fits_is_skipped_and_the_next_message_read() -> None:
    body = deep(100_000)
    found = events([b"Content-Length: 40\r\n\r\n" + body + NEXT])
    assert [type(e) for e in found] == [Problem, Message], found
    assert found[1].data["id"] == 99  # type: ignore[union-attr]
