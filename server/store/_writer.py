"""One writer thread for the language server: logging never blocks the editor.

Jobs run in submission order on a single thread that owns the
:class:`CandidateStore`, so a job may use the result of an earlier one without
waiting::

    req = writer.submit(lambda s: s.record_request(record))
    writer.submit(lambda s: s.record_candidate(req.result(), candidate))

When the database is unusable (written by a newer perfalign, damaged,
read-only, disk full) the writer logs one warning, sets ``disabled_reason``
and drops every later job: their futures fail with :class:`StoreDisabledError`
and the editor keeps working without logging. A locked database only fails the
job that met it.
"""
from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from ..errors import UNUSABLE_STORE, StoreDisabledError, StoreError, StoreLockedError
from ._db import CandidateStore, open_to_log
from ._policy import StorePolicy

T = TypeVar("T")
log = logging.getLogger("perfalign.store")

MAX_PENDING = 10_000


_STOP = object()


class StoreWriter:
    """A single thread that owns a :class:`CandidateStore` and runs submitted jobs in order."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        policy: StorePolicy | None = None,
        opener: Callable[[], CandidateStore] | None = None,
    ) -> None:
        if opener is None:
            from ..paths import default_db_path

            # The database this writer logs to (None when a custom opener decides).
            self.path: str | None = str(path) if path is not None else str(default_db_path())
            # The writer is a writing process: it applies the retention policy when it opens the store.
            opener = lambda: open_to_log(self.path, policy)  # noqa: E731
        else:
            self.path = None
        self._opener = opener
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=MAX_PENDING)
        self._disabled_reason: str | None = None
        self._closed = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="perfalign-store-writer", daemon=True)
        self._thread.start()

    @property
    def disabled_reason(self) -> str | None:
        """Why logging is off (one line), or None while it works."""
        return self._disabled_reason

    def submit(self, fn: Callable[[CandidateStore], T]) -> Future[T]:
        """Queue ``fn(store)`` on the writer thread; returns at once."""
        future: Future[T] = Future()
        reason = self._disabled_reason or ("the store writer is closed" if self._closed else None)
        if reason is not None:
            future.set_exception(StoreDisabledError(reason))
            return future
        try:
            self._queue.put_nowait((fn, future))
        except queue.Full:
            future.set_exception(StoreError("too many store writes are pending; this one was dropped"))
        return future

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every job submitted so far has run; False on timeout."""
        marker: Future[None] = self.submit(lambda store: None)
        try:
            marker.result(timeout)
        except StoreError:
            pass
        except TimeoutError:
            return False
        return True

    def close(self, timeout: float | None = 30.0) -> None:
        """Run what is queued, then close the database."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._queue.put(_STOP)
        self._thread.join(timeout)

    def __enter__(self) -> "StoreWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _disable(self, reason: str) -> None:
        if self._disabled_reason is None:
            self._disabled_reason = reason
            log.warning("preference logging is off: %s", reason)

    def _open(self) -> CandidateStore | None:
        """Open the store; None when it cannot be opened now (a lock) or at all (then logging is off)."""
        try:
            return self._opener()
        except StoreLockedError:
            return None
        except StoreError as exc:
            self._disable(str(exc))
        except Exception as exc:  # an unexpected failure must not reach the editor
            self._disable(f"cannot open the preference store: {exc}")
        return None

    def _run(self) -> None:
        store = self._open()
        while True:
            item = self._queue.get()
            if item is _STOP:
                break
            fn, future = item
            if not future.set_running_or_notify_cancel():
                continue
            if store is None and self._disabled_reason is None:
                store = self._open()  # the database was locked when last tried
            if store is None or self._disabled_reason is not None:
                reason = self._disabled_reason
                future.set_exception(
                    StoreDisabledError(reason) if reason else StoreLockedError("the preference store is locked by another process")
                )
                continue
            try:
                future.set_result(fn(store))
            except UNUSABLE_STORE as exc:
                self._disable(str(exc))
                future.set_exception(exc)
            except BaseException as exc:
                future.set_exception(exc)
        if store is not None:
            store.close()
