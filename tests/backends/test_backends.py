"""Backends: the OpenAI-compatible client against a local HTTP server, the fake replay backend, options."""
from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from perfalign.server import registry
from perfalign.server.backends import (
    BackendCancelled,
    BackendError,
    LockedBackend,
    SamplingParams,
    create_backend,
)
from perfalign.server.settings import Settings

MESSAGES = [{"role": "system", "content": "sys"}, {"role": "user", "content": "Function: row_sums\nmake it fast"}]


class Stub:
    """An OpenAI-compatible /v1/chat/completions on 127.0.0.1 whose behaviour a test sets."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.mode = "n"  # "n": honours n; "single": ignores n; "reject_n": 400 on n; "error": 500; "slow"; "garbage"
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
                if stub.mode == "slow":
                    time.sleep(3)
                if stub.mode == "error":
                    return self._send(500, b"internal error: model crashed")
                if stub.mode == "reject_n" and body.get("n", 1) > 1:
                    return self._send(400, b'{"error": "n is not supported"}')
                if stub.mode == "garbage":
                    return self._send(200, b"<html>not json</html>")
                n = body.get("n", 1) if stub.mode in ("n",) else 1
                choices = [
                    {"index": i, "message": {"role": "assistant", "content": f"reply seed={body['seed']} i={i}"}}
                    for i in range(n)
                ]
                self._send(200, json.dumps({"choices": choices}).encode())

            def _send(self, code: int, data: bytes) -> None:
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.handle_error = lambda request, address: None  # type: ignore[method-assign]  # a client that hung up
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def stub() -> Iterator[Stub]:
    server = Stub()
    yield server
    server.close()


def _openai(url: str, **options: Any):  # type: ignore[no-untyped-def]
    registry.register_openai("remote", url, remote_model="qwen-coder")
    return create_backend(Settings(model="remote"), options=options)


def test_openai_asks_for_all_samples_in_one_request(stub: Stub) -> None:
    backend = _openai(stub.url)
    done: list[int] = []
    texts = backend.generate(MESSAGES, 3, SamplingParams(max_tokens=64, temperature=0.7, top_p=0.9, seed=5), on_sample=lambda i, t: done.append(i))
    assert texts == ["reply seed=5 i=0", "reply seed=5 i=1", "reply seed=5 i=2"]
    assert sorted(done) == [0, 1, 2]
    assert len(stub.requests) == 1
    body = stub.requests[0]["body"]
    assert stub.requests[0]["path"] == "/v1/chat/completions"
    assert body["n"] == 3 and body["model"] == "qwen-coder" and body["messages"] == MESSAGES


def test_openai_server_that_ignores_n_gets_one_request_per_sample(stub: Stub) -> None:
    stub.mode = "single"
    texts = _openai(stub.url).generate(MESSAGES, 3, SamplingParams(max_tokens=64, temperature=0.7, top_p=0.9, seed=10))
    assert texts == ["reply seed=10 i=0", "reply seed=11 i=0", "reply seed=12 i=0"]


def test_openai_server_that_rejects_n(stub: Stub) -> None:
    stub.mode = "reject_n"
    texts = _openai(stub.url).generate(MESSAGES, 2, SamplingParams(max_tokens=64, temperature=0.7, top_p=0.9, seed=1))
    assert len(texts) == 2 and all(t.startswith("reply") for t in texts)


def test_openai_endpoint_down_is_a_clear_error(stub: Stub) -> None:
    url = stub.url
    stub.close()
    with pytest.raises(BackendError, match="cannot reach the model endpoint .* is the server running"):
        _openai(url).generate(MESSAGES, 1, SamplingParams(max_tokens=8, temperature=0.0, top_p=1.0, seed=0))


def test_openai_slow_endpoint_times_out(stub: Stub) -> None:
    stub.mode = "slow"
    backend = _openai(stub.url, timeout_s=0.5)
    with pytest.raises(BackendError, match="did not answer within"):
        backend.generate(MESSAGES, 1, SamplingParams(max_tokens=8, temperature=0.0, top_p=1.0, seed=0))


def test_openai_server_errors_are_reported(stub: Stub) -> None:
    stub.mode = "error"
    with pytest.raises(BackendError, match="HTTP 500: internal error: model crashed"):
        _openai(stub.url).generate(MESSAGES, 1, SamplingParams(max_tokens=8, temperature=0.0, top_p=1.0, seed=0))
    stub.mode = "garbage"
    with pytest.raises(BackendError, match="not JSON"):
        _openai(stub.url).generate(MESSAGES, 1, SamplingParams(max_tokens=8, temperature=0.0, top_p=1.0, seed=0))


def test_openai_cancel_returns_promptly(stub: Stub) -> None:
    stub.mode = "slow"
    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()
    started = time.monotonic()
    with pytest.raises(BackendCancelled):
        _openai(stub.url).generate(MESSAGES, 1, SamplingParams(max_tokens=8, temperature=0.0, top_p=1.0, seed=0), cancel=cancel)
    assert time.monotonic() - started < 2.5


def test_unknown_options_fail_visibly(stub: Stub) -> None:
    with pytest.raises(BackendError, match="invalid options for the openai backend: temprature"):
        _openai(stub.url, temprature=0.3)


def test_unknown_backend_is_named(tmp_path: Path) -> None:
    with pytest.raises(BackendError, match="unknown backend 'vllm-magic'"):
        create_backend(Settings(backend="vllm-magic"))


def test_missing_model_says_how_to_pull(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PERFALIGN_MODELS", str(tmp_path / "empty-cache"))
    with pytest.raises(BackendError, match="perfalign models pull qwen2.5-coder-1.5b"):
        create_backend(Settings())


def test_fake_backend_replays_in_order_and_cycles(tmp_path: Path) -> None:
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps(["a", "b", "c"]))
    backend = create_backend(Settings(backend="fake", endpoint=str(replies)))
    assert backend.generate(MESSAGES, 2, SamplingParams(max_tokens=8, temperature=0.7, top_p=1.0, seed=0)) == ["a", "b"]
    assert backend.generate(MESSAGES, 2, SamplingParams(max_tokens=8, temperature=0.7, top_p=1.0, seed=0)) == ["c", "a"]


def test_fake_backend_keyed_by_function(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps({"row_sums": ["for row_sums"], "*": ["for others"]}))
    monkeypatch.setenv("PERFALIGN_FAKE_REPLIES", str(replies))
    backend = create_backend(Settings(backend="fake"))
    assert backend.generate(MESSAGES, 1, SamplingParams(max_tokens=8, temperature=0.7, top_p=1.0, seed=0)) == ["for row_sums"]
    other = [{"role": "user", "content": "Function: matmul\n"}]
    assert backend.generate(other, 1, SamplingParams(max_tokens=8, temperature=0.7, top_p=1.0, seed=0)) == ["for others"]


def test_turns_answer_each_conversation_in_order_and_wait_for_a_shared_model(tmp_path: Path) -> None:
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps({"row_sums": ["fixed row_sums"], "matmul": ["fixed matmul"]}))
    shared = LockedBackend(create_backend(Settings(backend="fake", endpoint=str(replies)), options={"delay_s": 0.3}))
    turns = [[{"role": "user", "content": f"Function: {name}\n"}] for name in ("matmul", "row_sums")]
    params = SamplingParams(max_tokens=8, temperature=0.7, top_p=1.0, seed=0)
    seen: list[tuple[int, str]] = []
    cancel = threading.Event()
    assert shared.generate_turns(turns, params, [1, 2], cancel=cancel,
                                 on_sample=lambda i, text: seen.append((i, text))) == ["fixed matmul", "fixed row_sums"]
    assert seen == [(0, "fixed matmul"), (1, "fixed row_sums")]
    other = threading.Thread(target=shared.generate, args=(turns[0], 3, params), kwargs={"cancel": threading.Event()})
    other.start()  # another job holds the model for about 0.9 s
    time.sleep(0.1)
    cancel.set()
    began = time.monotonic()
    with pytest.raises(BackendCancelled):
        shared.generate_turns(turns, params, [1, 2], cancel=cancel)
    assert time.monotonic() - began < 0.5  # stopped waiting, not after the other job
    other.join()


def test_fake_backend_bad_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(BackendError, match="not valid JSON"):
        create_backend(Settings(backend="fake", endpoint=str(bad)))
    with pytest.raises(BackendError, match="cannot read"):
        create_backend(Settings(backend="fake", endpoint=str(tmp_path / "missing.json")))
