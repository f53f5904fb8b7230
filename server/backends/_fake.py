"""A deterministic backend for tests: it replays replies from a JSON file. Never a default.

The file is named by ``Settings.endpoint`` or the environment variable
``PERFALIGN_FAKE_REPLIES``. It holds either a list of raw reply strings, used
in order and cycled across calls, or an object mapping a function name to such
a list (the key ``"*"`` serves functions not named). The function is found in
the last user message that names one, which the prompts write as ``Function: NAME``
(a feedback turn continues the conversation of the prompt that named it).
"""
from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path
from typing import Any

from ..registry import ResolvedModel
from ..settings import Settings
from ._base import (
    Backend,
    BackendError,
    Messages,
    Options,
    SampleCallback,
    SamplingParams,
    check_cancel,
    cut_at_stop,
    parse_options,
)

ENV_VAR = "PERFALIGN_FAKE_REPLIES"
FUNCTION_RE = re.compile(r"^Function: (\S+)", re.MULTILINE)


class FakeOptions(Options):
    replies: str | None = None  # path of the JSON file (overrides endpoint and the env var)
    delay_s: float = 0.0  # wait this long before each sample (to test progress and cancel)


class FakeBackend(Backend):
    name = "fake"
    batched = True

    def __init__(self, path: Path, options: FakeOptions) -> None:
        try:
            data: Any = json.loads(path.read_text())
        except OSError as exc:
            raise BackendError(f"fake backend: cannot read {path}: {exc.strerror}") from None
        except json.JSONDecodeError as exc:
            raise BackendError(f"fake backend: {path} is not valid JSON: {exc}") from None
        if isinstance(data, list):
            data = {"*": data}
        if not isinstance(data, dict) or not all(
            isinstance(v, list) and all(isinstance(s, str) for s in v) for v in data.values()
        ):
            raise BackendError(f"fake backend: {path} must hold a list of strings or an object of such lists")
        self.replies: dict[str, list[str]] = data
        self.options = options
        self.cursor: dict[str, int] = {}
        self.calls: list[Messages] = []

    def generate(
        self,
        messages: Messages,
        n: int,
        params: SamplingParams,
        *,
        cancel: threading.Event | None = None,
        on_sample: SampleCallback | None = None,
    ) -> list[str]:
        self.calls.append(messages)
        users = [m["content"] for m in reversed(messages) if m["role"] == "user"]
        match = next((found for text in users if (found := FUNCTION_RE.search(text))), None)
        key = match.group(1) if match and match.group(1) in self.replies else "*"
        pool = self.replies.get(key)
        if not pool:
            raise BackendError(f"fake backend: no replies for function {match.group(1) if match else '?'}")
        out: list[str] = []
        for i in range(n):
            if self.options.delay_s and cancel is not None:
                cancel.wait(self.options.delay_s)
            check_cancel(cancel)
            start = self.cursor.get(key, 0)
            text, _ = cut_at_stop(pool[start % len(pool)], params.stop)
            self.cursor[key] = start + 1
            out.append(text)
            if on_sample is not None:
                on_sample(i, text)
        return out


def replies_path(settings: Settings, options: FakeOptions) -> Path:
    source = options.replies or settings.endpoint or os.environ.get(ENV_VAR)
    if not source:
        raise BackendError(f"fake backend: name a replies file with the endpoint setting or ${ENV_VAR}")
    return Path(source)


def create(model: ResolvedModel, settings: Settings, options: dict[str, Any]) -> FakeBackend:
    opts = parse_options(FakeOptions, options, "fake")
    assert isinstance(opts, FakeOptions)
    return FakeBackend(replies_path(settings, opts), opts)
