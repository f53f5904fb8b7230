"""The record stage: the job's request and each candidate go to the preference store.

The log must never break a suggestion: the first write that fails switches
logging off for the rest of the job, and the job's summary says so.
"""
from __future__ import annotations

from typing import Protocol

from ..errors import one_line
from ..records import CandidateRecord, RequestRecord


class StoreLike(Protocol):
    def record_request(self, req: RequestRecord) -> str: ...

    def record_candidate(self, request_id: str, cand: CandidateRecord) -> str: ...


class JobLog:
    """One job's rows in the store, or nothing when there is no store or it failed."""

    def __init__(self, store: StoreLike | None) -> None:
        self._store = store
        self.request_id: str | None = None
        self.note = ""  # " (not logged: why)" once a write failed

    def request(self, record: RequestRecord) -> None:
        if self._store is None:
            return
        try:
            self.request_id = self._store.record_request(record)
        except Exception as exc:  # noqa: BLE001 - the log must never break a suggestion
            self._fail(exc)

    def candidate(self, record: CandidateRecord) -> str | None:
        """The candidate's id in the store, or None when it was not logged."""
        if self._store is None or self.request_id is None:
            return None
        try:
            return self._store.record_candidate(self.request_id, record)
        except Exception as exc:  # noqa: BLE001 - the log must never break a suggestion
            self._fail(exc)
            return None

    def _fail(self, exc: Exception) -> None:
        self._store = None
        self.note = f" (not logged: {one_line(exc)})"
