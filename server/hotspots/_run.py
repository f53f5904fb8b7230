"""Run the user's command, plainly or under a profiler, within a time limit; its output goes to files."""
from __future__ import annotations

import os
import shlex
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import HotspotsError


@dataclass(frozen=True)
class Ran:
    """One finished run: its exit status, wall time and where its output is."""

    returncode: int
    wall_s: float
    stdout: Path
    stderr: Path


def command_text(command: list[str]) -> str:
    return shlex.join(command)


def run_limited(argv: list[str], *, cwd: Path, folder: Path, name: str, time_limit_s: float,
                what: str, profiled: bool = False) -> Ran:
    """Run ``argv`` in its own process group; past ``time_limit_s`` the whole group is stopped.

    Its standard output and error are kept in ``folder`` (``NAME.stdout``, ``NAME.stderr``).
    ``what`` names the run in messages ("the command", "the command under perf").
    """
    stdout = folder / f"{name}.stdout"
    stderr = folder / f"{name}.stderr"
    start = time.monotonic()
    try:
        with stdout.open("wb") as out, stderr.open("wb") as err:
            proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                    start_new_session=True)
            try:
                returncode = proc.wait(timeout=time_limit_s)
            except subprocess.TimeoutExpired:
                _stop_group(proc)
                where = "its output and the profiler's are" if profiled else "its output is"
                raise HotspotsError(
                    f"{what} ran past the time limit of {time_limit_s:g} s and was stopped; "
                    f"{where} in {folder}; "
                    f"give a longer --time-limit or a smaller input"
                ) from None
            except BaseException:
                _stop_group(proc)
                raise
    except FileNotFoundError:
        raise HotspotsError(f"cannot run {command_text(argv)}: {argv[0]} was not found") from None
    except PermissionError:
        raise HotspotsError(f"cannot run {command_text(argv)}: {argv[0]} is not executable") from None
    return Ran(returncode, time.monotonic() - start, stdout, stderr)


def _stop_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGINT first (perf and valgrind then write what they have), SIGKILL after two seconds."""
    for sig, wait_s in ((signal.SIGINT, 2.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait_s)
            return
        except subprocess.TimeoutExpired:
            continue


def tail(path: Path, lines: int = 3) -> str:
    """The last lines of a run's output, one line, for a message."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    kept = [line.strip() for line in text.strip().splitlines()[-lines:] if line.strip()]
    return " | ".join(kept)[:300]
