"""File helpers the registry's steps share: hashing, free space, a cancellable child process."""
from __future__ import annotations

import hashlib
import shutil
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

from ..errors import AssemblyError, RegistryError

CHUNK = 1 << 20


def file_sha256(path: Path, advance: Callable[[int], None] | None = None) -> str:
    """The sha256 of a file, read in chunks; ``advance(n)`` after each."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
            if advance:
                advance(len(chunk))
    return digest.hexdigest()


def check_space(folder: Path, total: int) -> None:
    """Raise :class:`AssemblyError` unless ``folder`` has room for ``total`` bytes and a margin."""
    folder.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(folder).free
    if free < total + (64 << 20):
        raise AssemblyError(
            f"not enough disk space in {folder}: {free / 2**30:.1f} GiB free, the model needs {total / 2**30:.1f} GiB; "
            "free some space or set PERFALIGN_MODELS to another folder"
        )


def run_child(argv: list[str], cancel: threading.Event | None, cancelled: RegistryError) -> tuple[int, str]:
    """Run ``argv`` to its end: (status, stdout and stderr together); kill it and raise ``cancelled`` once ``cancel`` is set."""
    if cancel is not None and cancel.is_set():
        raise cancelled
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    while True:
        try:
            out, _ = proc.communicate(timeout=0.2)
            return proc.returncode, out or ""
        except subprocess.TimeoutExpired:
            if cancel is not None and cancel.is_set():
                proc.kill()
                proc.communicate()
                raise cancelled from None
