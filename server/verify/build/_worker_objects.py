"""perfalign's worker (``worker.c``) compiled once per process for each command that builds it.

The worker's source is perfalign's own and the same for every function: its
object depends on the compile command alone (the compiler, its flags, the
sanitizers). The first function prepared with a command compiles it beside its
own units and a copy is kept here; later functions link the copy. Copies live
in a folder of this process (readable by the sandbox's throw-away user, written
only by this process) and go when it exits.
"""
from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
import threading
from pathlib import Path

_lock = threading.Lock()
_folder: Path | None = None
_kept: dict[str, Path] = {}


def key_of(argv: list[str], source: Path, out: Path) -> str:
    """What decides the object: the command (source and object named by their role), the compiler's file, the source."""
    words = ["<source>" if arg == str(source) else "<object>" if arg == str(out) else arg for arg in argv]
    compiler = shutil.which(argv[0]) or argv[0]
    try:
        stamp = str(os.stat(compiler).st_mtime_ns)
    except OSError:
        stamp = ""
    digest = hashlib.sha256()
    for part in [*words, compiler, stamp, source.read_text()]:
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def kept(key: str) -> Path | None:
    """The kept object of a command, or None when this process has not built it yet."""
    with _lock:
        path = _kept.get(key)
    return path if path is not None and path.is_file() else None


def keep(key: str, built: Path) -> Path:
    """Keep a copy of ``built`` (the object of the command ``key``); returns the copy."""
    folder = _store()
    target = folder / f"{key[:40]}.o"
    partial = folder / f".{key[:40]}.{os.getpid()}.{threading.get_ident()}"
    shutil.copyfile(built, partial)
    os.chmod(partial, 0o644)
    os.replace(partial, target)
    with _lock:
        _kept[key] = target
    return target


def _store() -> Path:
    global _folder
    with _lock:
        if _folder is None or not _folder.is_dir():
            _folder = Path(tempfile.mkdtemp(prefix="perfalign-worker-"))
            os.chmod(_folder, 0o755)  # the sandbox's throw-away user links the objects
            _kept.clear()
            atexit.register(shutil.rmtree, _folder, True)
        return _folder
