"""One loaded model shared by several jobs: one ``generate`` at a time."""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ..errors import BackendCancelled


class LockedBackend:
    """A backend whose ``generate`` and ``generate_turns`` run one call at a time; everything else is passed through.

    The language server's jobs on two files and a batch run's parallel jobs share one model this way. A job
    waiting for the model stops waiting, with :class:`BackendCancelled`, as soon as its ``cancel`` is set.
    Whoever made the lock closes the model (``inner``); the jobs it is lent to never do.
    """

    def __init__(self, backend: Any) -> None:
        self.inner = backend
        self._lock = threading.Lock()

    def generate(self, *args: Any, **kwargs: Any) -> Any:
        return self._alone(self.inner.generate, *args, **kwargs)

    def generate_turns(self, *args: Any, **kwargs: Any) -> Any:
        return self._alone(self.inner.generate_turns, *args, **kwargs)

    def _alone(self, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``call`` once no other job samples; waiting stops when the job's ``cancel`` is set."""
        cancel = kwargs.get("cancel")
        while not self._lock.acquire(timeout=0.05):
            if cancel is not None and cancel.is_set():
                raise BackendCancelled("cancelled")
        try:
            return call(*args, **kwargs)
        finally:
            self._lock.release()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
