"""How the verifier runs things: folders, sandboxed commands, workers, and its verdicts' common fields.

One :class:`Runner` per function being verified holds the settings that
decide how every compiler run and every worker is started (the sandbox, the
limits, the environment, the thread count) and the work directory they use.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ...settings import Settings
from ...verdict import Status, Verdict
from . import _sandbox as sandbox
from ._lease import LeaseRecord, TimingLeases
from ._sandbox import Cancelled, Limits, RunResult
from ._worker import Worker

RUN_MEMORY = 4 * 1024**3
DETAIL_LIMIT = 400  # characters of a verdict's detail, as the editor and the report show it


class Stop(Exception):
    """A verdict reached before the end of a step."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__(verdict.detail)
        self.verdict = verdict


class Runner:
    def __init__(self, settings: Settings, mode: str, cancel: threading.Event | None,
                 progress: Callable[[str], None]) -> None:
        self.settings = settings
        self.mode = mode
        self.cancel = cancel
        self.progress = progress
        self.threads = max(1, settings.threads) if mode == "openmp" else 1
        self.flags: list[str] = list(settings.cflags)  # what verdicts report; the toolchain's once it is made
        self._workdir: Path | None = None
        self._counter = 0
        self._lock = threading.Lock()
        self.leases = TimingLeases.for_settings(settings)
        self._pinned = threading.local()  # the cores this thread's timing lease holds: its workers run there

    @contextlib.contextmanager
    def leased(self, threads: int) -> Iterator[LeaseRecord]:
        """Hold the machine-wide timing lease on ``threads`` cores; the workers started meanwhile run on them.

        A cancelled job stops waiting; progress says whom the wait is for.
        """
        with self.leases.lease(threads, check=self.check_cancel, progress=self.progress) as record:
            outer = getattr(self._pinned, "cores", ())
            self._pinned.cores = record.cores
            try:
                yield record
            finally:
                self._pinned.cores = outer

    def close(self) -> None:
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None

    @property
    def workdir(self) -> Path:
        if self._workdir is None:
            self._workdir = Path(tempfile.mkdtemp(prefix="perfalign-verify-"))
            self._workdir.chmod(0o755)  # sandboxed commands run as another user and read the sources
        return self._workdir

    def job(self, parent: Path | None = None) -> Path:
        """A fresh folder for one sandboxed command: its only writable place."""
        with self._lock:
            self._counter += 1
            path = (parent or self.workdir) / f"job{self._counter}"
        path.mkdir(mode=0o755)
        return path

    def verdict(self, status: Status, detail: str, *, limit: int = DETAIL_LIMIT, **kw: object) -> Verdict:
        """The verdict, its detail on one line and at most ``limit`` characters."""
        kw.setdefault("flags", list(self.flags))
        return Verdict(status=status, detail=squash(detail, limit), threads=self.threads, mode=self.mode, path="harness", **kw)  # type: ignore[arg-type]

    def check_cancel(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled()

    def env(self, threads: int, lockdown: str | None, *, passive: bool = True) -> dict[str, str]:
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
        env.update(OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="close" if threads > 1 else "false", OMP_DYNAMIC="false")
        if passive:
            # Waiting OpenMP threads sleep instead of spinning: on a busy machine (or with more threads than
            # cores, as in the checks) spinning threads stall a descheduled partner for whole time slices.
            env["OMP_WAIT_POLICY"] = "passive"
        if lockdown:
            env["PF_LOCKDOWN"] = lockdown
        return env

    def start(self, exe: Path, name: str, *, threads: int, lockdown: str, passive: bool = True,
              nice: int = 0) -> Worker:
        """A worker in a folder of its own that holds nothing but its own program.

        ``nice`` above 0 lowers its priority (a retry after a timeout: the rest
        of the machine keeps its share while a candidate that hangs runs again).
        """
        self.check_cancel()
        cwd = self.job()
        target = cwd / exe.name
        shutil.copyfile(exe, target)
        target.chmod(0o755)
        limits = Limits(wall_s=24 * 3600, cpu_s=max(self.settings.run_timeout_s * 8, 600), memory_bytes=RUN_MEMORY,
                        cpus=getattr(self._pinned, "cores", ()))
        worker = Worker.start(target, name=name, cwd=cwd, limits=limits,
                              env=self.env(threads, lockdown, passive=passive), sandbox=self.settings.sandbox,
                              cancel=self.cancel)
        if nice > 0:
            try:  # before its first command, so the threads it starts later inherit the priority
                os.setpriority(os.PRIO_PROCESS, worker.process.pid, min(19, os.getpriority(os.PRIO_PROCESS, 0) + nice))
            except OSError:
                pass  # a priority it cannot be given: the retry runs at the normal one
        return worker

    def run(self, argv: list[str], timeout: float, *, cwd: Path | None = None) -> RunResult:
        self.check_cancel()
        limits = Limits(wall_s=timeout, cpu_s=max(timeout * 4 * max(self.threads, 4), 30), memory_bytes=RUN_MEMORY)
        res = sandbox.run(argv, cwd=cwd or self.job(), limits=limits, env=self.env(1, None), cancel=self.cancel,
                          readable=[self.workdir], sandbox=self.settings.sandbox)
        if res.cancelled:
            raise Cancelled()
        return res

    def parallel(self, argvs: list[list[str]], timeout: float, *, cwds: list[Path] | None = None) -> list[RunResult]:
        if len(argvs) == 1:
            return [self.run(argvs[0], timeout, cwd=cwds[0] if cwds else None)]
        workers = max(1, min(len(argvs), os.cpu_count() or 2))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(self.run, a, timeout, cwd=cwds[i] if cwds else None) for i, a in enumerate(argvs)]
            return [f.result() for f in futures]

    def call_timeout(self, baseline_ms: float) -> float:
        """How long one call may take while checking: generous, as calls at 8 threads share the cores."""
        return min(self.settings.run_timeout_s, max(10.0, 40 * baseline_ms / 1000))

    def time_timeout(self, baseline_ms: float) -> float:
        return min(self.settings.run_timeout_s, max(20.0, 40 * baseline_ms / 1000))

    def retry_timeout(self, timeout: float) -> float:
        """The limit of a call's second try after a timeout: twice the first, within ``run_timeout_s``."""
        return max(timeout, min(self.settings.run_timeout_s, 2 * timeout))




def squash(text: str, limit: int = DETAIL_LIMIT) -> str:
    """``text`` on one line (its whitespace collapsed), at most ``limit`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
