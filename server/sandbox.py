"""Run a command with resource limits, a wall-clock timeout and cancellation.

Every build and run of candidate code goes through :func:`run`. The whole
process group is killed on timeout or cancel; output is captured to files and
truncated, so a candidate that prints gigabytes cannot exhaust memory.
"""
from __future__ import annotations

import os
import resource
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

OUTPUT_CAP = 64 * 1024


@dataclass(frozen=True)
class Limits:
    wall_s: float = 60.0
    cpu_s: float = 120.0
    memory_bytes: int = 4 * 1024**3
    file_bytes: int = 256 * 1024**2
    processes: int = 256


@dataclass
class RunResult:
    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    timed_out: bool = False
    cancelled: bool = False
    signal: int | None = None
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and not self.cancelled


class Cancelled(Exception):
    """Raised by long work when its cancel event is set."""


def _limit_preexec(limits: Limits):  # type: ignore[no-untyped-def]
    def apply() -> None:
        cpu = int(limits.cpu_s) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply




def kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run(
    argv: list[str],
    *,
    cwd: Path,
    limits: Limits = Limits(),
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
    cancel: threading.Event | None = None,
) -> RunResult:
    """Run ``argv`` in ``cwd`` under ``limits``; never raises for the child's failures."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as out_f, tempfile.TemporaryFile() as err_f, tempfile.TemporaryFile() as in_f:
        if stdin:
            in_f.write(stdin)
            in_f.seek(0)
        try:
            proc = subprocess.Popen(
                argv,
                cwd=cwd,
                env=env,
                stdin=in_f,
                stdout=out_f,
                stderr=err_f,
                start_new_session=True,
                preexec_fn=_limit_preexec(limits),
            )
        except OSError as exc:
            return RunResult(127, "", f"cannot start {argv[0]}: {exc.strerror}", 0.0)
        timed_out = cancelled = False
        while True:
            try:
                proc.wait(timeout=0.02)
                break
            except subprocess.TimeoutExpired:
                pass
            if cancel is not None and cancel.is_set():
                cancelled = True
            elif time.monotonic() - start > limits.wall_s:
                timed_out = True
            else:
                continue
            kill_group(proc)
            proc.wait()
            break
        # Children left behind in the group (a fork bomb, a daemon) go too.
        kill_group(proc)
        wall = time.monotonic() - start
        out_f.seek(0)
        err_f.seek(0)
        stdout = out_f.read(OUTPUT_CAP + 1).decode("utf-8", errors="replace")[:OUTPUT_CAP]
        stderr = err_f.read(OUTPUT_CAP + 1).decode("utf-8", errors="replace")[:OUTPUT_CAP]
    code = proc.returncode
    return RunResult(
        returncode=code,
        stdout=stdout,
        stderr=stderr,
        wall_s=wall,
        timed_out=timed_out,
        cancelled=cancelled,
        signal=-code if code is not None and code < 0 else None,
    )
