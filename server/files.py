"""Reading the source files a user names: regular files only, never more than a limit, never stuck.

A path from an editor or the command line can name anything: a named pipe
(reading it waits for a writer forever), a device, ``/proc/kmsg`` (a "regular"
file whose read blocks), a socket, a folder, or a sparse file of gigabytes.
:func:`read_source` looks at what the path is before opening it, opens it
without blocking, checks that it is still the regular file it looked at and
reads at most ``limit`` bytes. :func:`read_source_within` does the same on a
thread of its own and gives up after a time limit, so a file system that hangs
cannot hang the caller.
"""
from __future__ import annotations

import os
import stat
import threading
from concurrent.futures import Future
from pathlib import Path

from .errors import SourceFileError

# Source files perfalign reads (and the language server parses) stay below this size: room for a single-file
# amalgamation (SQLite's is about 9 MB), which takes seconds, not minutes, to parse (docs/benchmarks.md).
MAX_SOURCE_BYTES = 12_000_000
# A read of a source file that takes longer than this is abandoned.
READ_TIMEOUT_S = 5.0

# Kernel file systems whose "regular" files may block on read or report no size.
_PSEUDO_ROOTS = ("/proc", "/sys")


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a plain file"


def _pseudo_devices() -> set[int]:
    devices = set()
    for root in _PSEUDO_ROOTS:
        try:
            devices.add(os.stat(root).st_dev)
        except OSError:
            pass
    return devices


def _on_pseudo_fs(path: str, device: int) -> str | None:
    """The kernel file system ``path`` lies on (``/proc``, ``/sys``), or None."""
    real = os.path.realpath(path)
    for root in _PSEUDO_ROOTS:
        if real == root or real.startswith(root + "/"):
            return root
    return "a kernel file system" if device in _pseudo_devices() else None


def _size_error(what: str, path: str | Path, size: int, limit: int) -> SourceFileError:
    return SourceFileError(
        "too_large", f"{what} {path} is {size / 1e6:.1f} MB; perfalign reads source files up to {limit / 1e6:.0f} MB"
    )


def check_source(path: str | Path, limit: int = MAX_SOURCE_BYTES, what: str = "the file") -> os.stat_result:
    """Raise :class:`SourceFileError` unless ``path`` is a regular file of at most ``limit`` bytes (nothing is read)."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        raise SourceFileError("not_found", f"{what} {path} does not exist") from None
    except OSError as exc:
        raise SourceFileError("unreadable", f"cannot read {what} {path}: {exc.strerror}") from None
    if not stat.S_ISREG(found.st_mode):
        raise SourceFileError("not_regular", f"{what} {path} is not a regular file (it is {_kind(found.st_mode)})")
    pseudo = _on_pseudo_fs(str(path), found.st_dev)
    if pseudo is not None:
        raise SourceFileError("not_regular", f"{what} {path} is not a regular file (it is in {pseudo})")
    if found.st_size > limit:
        raise _size_error(what, path, found.st_size, limit)
    return found


def read_source(path: str | Path, limit: int = MAX_SOURCE_BYTES, what: str = "the file") -> bytes:
    """The bytes of the regular file ``path``; :class:`SourceFileError` for anything else or anything larger."""
    found = check_source(path, limit, what)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise SourceFileError("unreadable", f"cannot read {what} {path}: {exc.strerror}") from None
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode) or (opened.st_dev, opened.st_ino) != (found.st_dev, found.st_ino):
            raise SourceFileError("not_regular", f"{what} {path} changed into something else while it was opened")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except BlockingIOError:
        raise SourceFileError("not_regular", f"{what} {path} is not a regular file (reading it would wait)") from None
    except OSError as exc:
        raise SourceFileError("unreadable", f"cannot read {what} {path}: {exc.strerror}") from None
    finally:
        os.close(fd)
    if size > limit:
        raise _size_error(what, path, size, limit)
    return b"".join(chunks)


def start_reading(path: str | Path, limit: int = MAX_SOURCE_BYTES, what: str = "the file") -> Future[bytes]:
    """:func:`read_source` on a daemon thread (a read that never returns cannot keep the process alive)."""
    future: Future[bytes] = Future()

    def run() -> None:
        try:
            future.set_result(read_source(path, limit, what))
        except BaseException as exc:  # handed to whoever waits
            future.set_exception(exc)

    threading.Thread(target=run, name="perfalign-read", daemon=True).start()
    return future


def timeout_error(path: str | Path, seconds: float, what: str = "the file") -> SourceFileError:
    return SourceFileError(
        "timeout",
        f"reading {what} {path} took more than {seconds:g} s, so perfalign left it (a slow or hung file system?)",
    )


def read_source_within(
    path: str | Path, limit: int = MAX_SOURCE_BYTES, timeout_s: float = READ_TIMEOUT_S, what: str = "the file"
) -> bytes:
    """:func:`read_source`, abandoned after ``timeout_s`` seconds."""
    future = start_reading(path, limit, what)
    try:
        return future.result(timeout=timeout_s)
    except TimeoutError:
        raise timeout_error(path, timeout_s, what) from None


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` so that a reader (or a run killed half-way) sees the old file or the new, never half.

    The bytes go to a temporary file in the same folder, are flushed to disk and renamed over ``path``.
    :class:`OSError` reaches the caller; the temporary file is removed.
    """
    target = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with open(tmp, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
