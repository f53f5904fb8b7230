"""Any OpenAI-compatible ``/v1/chat/completions`` endpoint: vLLM, llama.cpp's server, Ollama.

One request asks for all N samples with ``n`` when the server accepts it;
servers that ignore or reject ``n`` get N requests instead.
"""
from __future__ import annotations

import os
import threading
from typing import Any

import httpx

from ..registry import ResolvedModel
from ..settings import Settings
from ._base import (
    Backend,
    BackendCancelled,
    BackendError,
    Messages,
    Options,
    SampleCallback,
    SamplingParams,
    check_cancel,
    cut_at_stop,
    parse_options,
)


class OpenAIOptions(Options):
    timeout_s: float = 300.0  # for a whole response
    connect_timeout_s: float = 5.0
    use_n: bool = True  # ask for all samples in one request
    api_key_env: str = ""
    extra_body: dict[str, Any] = {}


class OpenAIBackend(Backend):
    name = "openai"
    batched = True

    def __init__(self, endpoint: str, remote_model: str, options: OpenAIOptions) -> None:
        if not endpoint:
            raise BackendError("the openai backend needs an endpoint, e.g. http://localhost:8000/v1")
        base = endpoint.rstrip("/")
        self.url = base if base.endswith("/chat/completions") else f"{base}/chat/completions"
        self.remote_model = remote_model
        self.options = options
        self.supports_n = options.use_n
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(options.api_key_env) if options.api_key_env else os.environ.get("PERFALIGN_API_KEY")
        if key:
            headers["Authorization"] = f"Bearer {key}"
        timeout = httpx.Timeout(options.timeout_s, connect=options.connect_timeout_s)
        self.client = httpx.Client(headers=headers, timeout=timeout)

    @property
    def description(self) -> str:
        return f"{self.remote_model} at {self.url}"

    def _post(self, body: dict[str, Any], cancel: threading.Event | None) -> dict[str, Any]:
        result: dict[str, Any] = {}
        error: list[BaseException] = []

        def call() -> None:
            try:
                response = self.client.post(self.url, json=body)
                result["status"] = response.status_code
                result["text"] = response.text
                if response.status_code == 200:
                    result["json"] = response.json()
            except BaseException as exc:  # handed to the caller's thread
                error.append(exc)

        worker = threading.Thread(target=call, daemon=True)
        worker.start()
        while worker.is_alive():
            worker.join(0.1)
            if cancel is not None and cancel.is_set():
                raise BackendCancelled("cancelled")
        if error:
            exc = error[0]
            if isinstance(exc, httpx.ConnectError):
                raise BackendError(f"cannot reach the model endpoint {self.url}: is the server running?") from None
            if isinstance(exc, httpx.TimeoutException):
                raise BackendError(
                    f"the model endpoint {self.url} did not answer within {self.options.timeout_s:.0f} s "
                    f"({type(exc).__name__}); it is overloaded or down"
                ) from None
            if isinstance(exc, ValueError):
                raise BackendError(f"the model endpoint {self.url} answered with something that is not JSON") from None
            if isinstance(exc, httpx.HTTPError):
                raise BackendError(f"request to {self.url} failed: {exc}") from None
            raise exc
        if result["status"] != 200:
            detail = result["text"].strip().splitlines()[0][:200] if result["text"].strip() else ""
            raise BackendError(f"the model endpoint {self.url} answered HTTP {result['status']}: {detail}")
        data = result["json"]
        if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
            raise BackendError(f"the model endpoint {self.url} answered without 'choices'; is it OpenAI-compatible?")
        return data

    @staticmethod
    def _texts(data: dict[str, Any]) -> list[str]:
        texts = []
        for choice in sorted(data["choices"], key=lambda c: c.get("index", 0)):
            message = choice.get("message") or {}
            texts.append(str(message.get("content") or choice.get("text") or ""))
        return texts

    def generate(
        self,
        messages: Messages,
        n: int,
        params: SamplingParams,
        *,
        cancel: threading.Event | None = None,
        on_sample: SampleCallback | None = None,
    ) -> list[str]:
        body: dict[str, Any] = {
            "model": self.remote_model,
            "messages": messages,
            "max_tokens": params.max_tokens,
            "temperature": params.temperature,
            "top_p": params.top_p,
            "seed": params.seed,
            **self.options.extra_body,
        }
        stop = list(params.stop)
        if stop:
            body["stop"] = stop
        texts: list[str] = []
        if self.supports_n and n > 1:
            try:
                texts = self._texts(self._post({**body, "n": n}, cancel))
            except BackendError as exc:
                if "HTTP 4" not in str(exc):
                    raise
                self.supports_n = False  # the server rejects n: one request per sample from now on
                texts = []
            if len(texts) < n and texts:
                self.supports_n = False  # the server ignored n; ask for the rest one by one
            for i, text in enumerate(texts[:n]):
                if on_sample is not None:
                    on_sample(i, cut_at_stop(text, stop)[0])
        while len(texts) < n:
            check_cancel(cancel)
            i = len(texts)
            reply = self._texts(self._post({**body, "seed": params.seed + i}, cancel))
            texts.append(reply[0] if reply else "")
            if on_sample is not None:
                on_sample(i, cut_at_stop(texts[-1], stop)[0])
        return [cut_at_stop(t, stop)[0] for t in texts[:n]]

    def close(self) -> None:
        self.client.close()


def create(model: ResolvedModel, settings: Settings, options: dict[str, Any]) -> OpenAIBackend:
    values = dict(options)
    if model.api_key_env and "api_key_env" not in values:
        values["api_key_env"] = model.api_key_env
    opts = parse_options(OpenAIOptions, values, "openai")
    assert isinstance(opts, OpenAIOptions)
    endpoint = model.endpoint or settings.endpoint or ""
    return OpenAIBackend(endpoint, model.remote_model or model.name, opts)
