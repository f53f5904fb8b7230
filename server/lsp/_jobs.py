"""Jobs of the language server: one optimize run per function, in a worker thread.

The worker iterates the pipeline and hands each event to the event loop through
``post`` (``loop.call_soon_threadsafe``); all editor-facing state is touched on
the loop only. Cancelling sets the job's event, which the pipeline checks
between steps and the sandbox watches to kill compilers and benchmarks.
"""
from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

logger = logging.getLogger(__name__)

Post = Callable[[Callable[[], None]], Any]

_ids = itertools.count(1)


class JobState(StrEnum):
    """How a job on a function ended, as ``perfalign/jobFinished`` and the report say."""

    VERIFIED = "verified"  # at least one verified rewrite is offered
    NONE = "none"  # the job ran, nothing is offered
    FAILED = "failed"  # the function, the model or the verifier could not be used
    APPLIED = "applied"  # the user applied a rewrite
    CANCELLED = "cancelled"
    WITHDRAWN = "withdrawn"  # the function changed while the job ran


@dataclass
class Job:
    uri: str
    function: str
    mode: str
    version: int | None  # document version the job started from
    id: str = field(default_factory=lambda: f"job-{next(_ids)}")
    cancel: threading.Event = field(default_factory=threading.Event)
    token: str | int | None = None  # work-done progress token, when the client shows progress
    started: float = field(default_factory=time.monotonic)
    joined: int = 0  # further requests for the same function that joined this job
    thread: threading.Thread | None = None
    last_fraction: float = 0.0
    last_message: str = ""
    samples: int | None = None  # candidates to sample (None: the setting); "Try again with more samples" doubles it
    seed: int | None = None  # the sampling seed (None: from the clock)

    @property
    def key(self) -> tuple[str, str]:
        return (self.uri, self.function)

    def describe(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "uri": self.uri,
            "function": self.function,
            "mode": self.mode,
            "seconds": round(time.monotonic() - self.started, 1),
            "progress": round(self.last_fraction, 2),
            "message": self.last_message,
            "cancelled": self.cancel.is_set(),
        }


class JobManager:
    """The running jobs, keyed by (document, function)."""

    def __init__(self, post: Post) -> None:
        self.post = post
        self.jobs: dict[tuple[str, str], Job] = {}

    def running(self, uri: str, function: str) -> Job | None:
        return self.jobs.get((uri, function))

    def by_id(self, job_id: str) -> Job | None:
        return next((j for j in self.jobs.values() if j.id == job_id), None)

    def by_token(self, token: object) -> Job | None:
        return next((j for j in self.jobs.values() if j.token is not None and j.token == token), None)

    def start(
        self,
        job: Job,
        work: Callable[[Job], Iterable[object]],
        on_event: Callable[[Job, object], None],
        on_done: Callable[[Job, BaseException | None], None],
    ) -> None:
        """Run ``work(job)`` in a thread; its events and its end are handled on the loop."""
        self.jobs[job.key] = job

        def deliver(event: object) -> None:
            self.post(lambda: on_event(job, event))

        def finish(error: BaseException | None) -> None:
            def done() -> None:
                if self.jobs.get(job.key) is job:
                    del self.jobs[job.key]
                on_done(job, error)

            self.post(done)

        def body() -> None:
            error: BaseException | None = None
            try:
                for event in work(job):
                    deliver(event)
            except BaseException as exc:  # a crashing job is reported, never fatal
                logger.error("job %s on %s crashed", job.id, job.function, exc_info=True)
                error = exc
            finally:
                try:
                    finish(error)
                except RuntimeError:
                    pass  # the loop is already closed: the server is exiting

        job.thread = threading.Thread(target=body, name=f"perfalign-{job.id}", daemon=True)
        job.thread.start()

    def cancel(self, jobs: Iterable[Job]) -> list[Job]:
        cancelled = []
        for job in jobs:
            if not job.cancel.is_set():
                job.cancel.set()
                cancelled.append(job)
        return cancelled

    def for_uri(self, uri: str) -> list[Job]:
        return [j for j in self.jobs.values() if j.uri == uri]

    def cancel_all(self) -> list[Job]:
        return self.cancel(list(self.jobs.values()))

    def wait_all(self, timeout_s: float) -> bool:
        """Wait for every worker thread to end; False if some are still running at the deadline."""
        deadline = time.monotonic() + timeout_s
        for job in list(self.jobs.values()):
            if job.thread is not None:
                job.thread.join(max(0.0, deadline - time.monotonic()))
        return all(j.thread is None or not j.thread.is_alive() for j in self.jobs.values())
