"""The interface every model backend implements: chat messages in, N sampled texts out."""
from __future__ import annotations

import dataclasses
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ..errors import BackendCancelled, BackendError

# on_sample(index, text): called as soon as sample ``index`` is complete.
SampleCallback = Callable[[int, str], None]
Messages = list[dict[str, str]]


@dataclass(frozen=True)
class SamplingParams:
    """How to sample, the same for every backend. Sample ``i`` of a request draws with seed ``seed + i``."""

    max_tokens: int = 768
    temperature: float = 0.7  # 0: greedy
    top_p: float = 0.95
    seed: int = 0
    stop: tuple[str, ...] = ()  # a sample ends before the first of these strings


class Options(BaseModel):
    """Backend options. Unknown keys fail visibly."""

    model_config = ConfigDict(extra="forbid")


def parse_options(cls: type[Options], values: dict[str, Any] | None, backend: str) -> Options:
    try:
        return cls(**(values or {}))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'options'}: {err['msg']}" for err in exc.errors()
        )
        raise BackendError(f"invalid options for the {backend} backend: {problems}") from None


class Backend(ABC):
    """A loaded model that samples completions for chat messages."""

    name: str = ""
    # True when the backend produces the N samples concurrently (one batch or one request).
    batched: bool = False

    def verifier_busy(self, busy: bool, *, threads: int = 1) -> None:
        """The caller starts (True) or stops (False) timing a candidate that runs ``threads`` threads here.

        A backend that computes locally leaves the verifier its cores meanwhile,
        and stops sampling when the candidate needs them all; calls nest (a stop
        names the threads its start named). Remote backends ignore it.
        """

    @abstractmethod
    def generate(
        self,
        messages: Messages,
        n: int,
        params: SamplingParams,
        *,
        cancel: threading.Event | None = None,
        on_sample: SampleCallback | None = None,
    ) -> list[str]:
        """Sample ``n`` completions of ``messages``; the i-th text is sample i.

        ``on_sample(i, text)`` is called as soon as sample i is complete (in
        completion order); raises :class:`BackendCancelled` when ``cancel``
        is set and :class:`BackendError` for anything the user must fix.
        """

    def generate_turns(
        self,
        turns: list[Messages],
        params: SamplingParams,
        seeds: list[int],
        *,
        cancel: threading.Event | None = None,
        on_sample: SampleCallback | None = None,
    ) -> list[str]:
        """One sample of each conversation in ``turns``, turn ``i`` drawn with ``seeds[i]``; text i answers turn i.

        ``on_sample(i, text)`` is called as soon as turn i's sample is
        complete. Here the turns are sampled one after another; a backend
        that batches (``batched``) samples them together.
        """
        out: list[str] = []
        for i, (messages, seed) in enumerate(zip(turns, seeds, strict=True)):
            check_cancel(cancel)
            one = self.generate(messages, 1, dataclasses.replace(params, seed=seed), cancel=cancel,
                                on_sample=None if on_sample is None else lambda _j, raw, i=i: on_sample(i, raw))
            out.append(one[0] if one else "")
        return out

    @property
    def description(self) -> str:
        return self.name

    def close(self) -> None:  # noqa: B027 - optional
        """Release the model's memory."""

    def __enter__(self) -> "Backend":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def check_cancel(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise BackendCancelled("cancelled")


def cut_at_stop(text: str, stop: tuple[str, ...] | list[str] | None) -> tuple[str, bool]:
    """``text`` cut before the first stop string, and whether one was found."""
    if not stop:
        return text, False
    positions = [text.find(s) for s in stop if s and s in text]
    if not positions:
        return text, False
    return text[: min(positions)], True
