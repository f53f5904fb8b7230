"""One loaded model shared by several jobs: one ``generate`` at a time."""
from __future__ import annotations

import threading
from typing import Any

from ..errors import BackendCancelled


class LockedBackend:
    """A backend whose ``generate`` runs one call at a time; everything else is passed through.

    The language server's jobs on two files and a batch run's parallel jobs share one model this way. A job
    waiting for the model stops waiting, with :class:`BackendCancelled`, as soon as its ``cancel`` is set.
    Whoever made the lock closes the model (``inner``); the jobs it is lent to never do.
    """

    def __init__(self, backend: Any) -> None:
        self.inner = backend
        self._lock = threading.Lock()

    def generate(self, *args: Any, **kwargs: Any) -> Any:
        cancel = kwargs.get("cancel")
        while not self._lock.acquire(timeout=0.05):
            if cancel is not None and cancel.is_set():
                raise BackendCancelled("cancelled")
        try:
            return self.inner.generate(*args, **kwargs)
        finally:
            self._lock.release()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
