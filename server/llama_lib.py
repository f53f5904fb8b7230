"""llama.cpp's library as llama-cpp-python ships it: loading it, its log, which build it is.

The llama-cpp backend samples with it and the registry's quantizer child
requantizes with it; both load it through :func:`load`, so that a missing
install, or a build made for a CPU with instructions this one lacks, says how
to fix it instead of stopping the process with SIGILL.

``scripts/build-llama.sh`` builds llama-cpp-python with perfalign's patches for
the CPU it runs on and writes what it built into the package
(``llama_cpp/perfalign_build.json``): the local version, the patches, and the
CPU features (instruction set extensions) the build was compiled for, as the
compiler's ``-march=native`` feature macros name them. :func:`installed_build`
reads it without loading the library; :func:`cpu_features` derives the same
list for this machine, as ``scripts/build-llama.sh --features`` prints it.
"""
from __future__ import annotations

import contextlib
import ctypes
import functools
import importlib.metadata
import importlib.util
import json
import os
import platform
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import BackendError

DISTRIBUTION = "llama_cpp_python"
RECORD_NAME = "perfalign_build.json"
# As scripts/build-llama.sh builds: without AMX (see extra_buffer_types in the backend).
X86_NO_AMX = ("-mno-amx-tile", "-mno-amx-int8", "-mno-amx-bf16")
REBUILD = "scripts/build-llama.sh .venv/bin/python"

_LOG_LOCK = threading.RLock()
_LOG_CALLBACK: Any = None  # the one callback given to llama.cpp, kept alive here
_LOG_SINK: list[str] | None = None  # where captured_logs collects llama.cpp's log
_LOG_ECHO = False
_LOG_LEVEL = 0  # the level of the last piece: a continuation (5) takes it over


def _x86() -> bool:
    return platform.machine().lower() in ("x86_64", "amd64")


# ---------------------------------------------------------------- which build


@dataclass(frozen=True)
class LlamaBuild:
    """The installed llama-cpp-python, as far as it can be told without loading it."""

    version: str | None  # the installed distribution's version; None: not installed
    key: str = ""  # scripts/build-llama.sh's cache key; empty: not built by it
    patches: tuple[str, ...] = ()
    features: tuple[str, ...] = ()  # CPU features the build was compiled for
    compiler: str = ""

    @property
    def by_perfalign(self) -> bool:
        """Built by scripts/build-llama.sh (its record is in the package)."""
        return bool(self.key)

    @property
    def q6_k_kernels(self) -> bool:
        """Whether the build carries perfalign's x86 kernels for repacked Q6_K weights."""
        return any("q6_K" in name for name in self.patches)

    def missing_features(self) -> tuple[str, ...]:
        """CPU features the build was compiled for that this CPU lacks (empty when unknown)."""
        if not self.features or not self.compiler or compiler_version() != self.compiler:
            return ()  # another compiler may name the features otherwise: nothing to compare with
        here = cpu_features()
        if here is None:
            return ()
        return tuple(sorted(set(self.features) - set(here)))

    def summary(self) -> str:
        """One line: the version, how it was built and for which CPU features."""
        if self.version is None:
            return "llama-cpp-python is not installed: run " + REBUILD
        if not self.by_perfalign:
            return f"llama-cpp-python {self.version}, not built by scripts/build-llama.sh (without perfalign's patches)"
        kernels = "with perfalign's Q6_K kernels" if self.q6_k_kernels else "without perfalign's Q6_K kernels"
        missing = self.missing_features()
        cpu = f"; this CPU lacks {' '.join(missing)}: run {REBUILD}" if missing else ""
        return f"llama-cpp-python {self.version} {kernels}, built for {vector_features(self.features)}{cpu}"


def vector_features(features: tuple[str, ...] | list[str]) -> str:
    """The vector extensions among ``features`` (what ggml's kernels choose by), and how many there are in all."""
    vector = [f for f in features if f.startswith(("avx", "amx")) or f in ("fma", "f16c")]
    return f"{' '.join(vector) or 'no vector extensions'} ({len(features)} features)"


def installed_build() -> LlamaBuild:
    """The llama-cpp-python installed in this Python, read without importing it."""
    try:
        version = importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return LlamaBuild(version=None)
    try:
        spec = importlib.util.find_spec("llama_cpp")
    except (ImportError, ValueError):
        spec = None
    if spec is None or spec.origin is None:
        return LlamaBuild(version=None)
    try:
        record = json.loads((Path(spec.origin).parent / RECORD_NAME).read_text())
    except (OSError, ValueError):
        return LlamaBuild(version=version)
    return LlamaBuild(
        version=version,
        key=str(record.get("key", "")),
        patches=tuple(record.get("patches", [])),
        features=tuple(record.get("features", [])),
        compiler=str(record.get("compiler", "")),
    )


def _compiler() -> str:
    return os.environ.get("CC") or "cc"


def compiler_version(compiler: str | None = None) -> str | None:
    """The first line of ``cc --version`` (as scripts/build-llama.sh records it); None without a compiler."""
    return _compiler_version(compiler or _compiler())


@functools.lru_cache(maxsize=8)
def _compiler_version(compiler: str) -> str | None:
    try:
        done = subprocess.run([compiler, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = done.stdout.splitlines()
    return lines[0].strip() if done.returncode == 0 and lines else None


def _macros(compiler: str, flags: list[str]) -> set[str] | None:
    try:
        done = subprocess.run([compiler, *flags, "-dM", "-E", "-x", "c", os.devnull],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return set(done.stdout.splitlines()) if done.returncode == 0 else None


def feature_macros(march: str = "native", compiler: str | None = None,
                   extra: tuple[str, ...] = ()) -> tuple[str, ...] | None:
    """The compiler's feature macros for ``-march=MARCH`` beyond the architecture's baseline.

    On x86-64 the baseline is ``-march=x86-64``, elsewhere the compiler's default
    target; macros with lower-case names (the CPU's model name, tuning) are left
    out. None without a compiler. This is what scripts/build-llama.sh keys its
    wheels by. ``compiler`` defaults to $CC, else ``cc``; ``extra`` flags follow
    ``-march`` (``-mavx512vnni``).
    """
    return _feature_macros(march, compiler or _compiler(), extra)


@functools.lru_cache(maxsize=16)
def _feature_macros(march: str, cc: str, extra: tuple[str, ...]) -> tuple[str, ...] | None:
    baseline = ["-march=x86-64", "-mtune=generic"] if _x86() else []
    target = [f"-march={march}", *extra, *(X86_NO_AMX if _x86() else ())]
    base, wanted = _macros(cc, baseline), _macros(cc, target)
    if base is None or wanted is None:
        return None
    lines = (line for line in wanted - base if line.startswith("#define "))
    return tuple(sorted(line for line in lines if not re.search(r"[a-z]", line.split()[1])))


def cpu_features(march: str = "native", compiler: str | None = None,
                 extra: tuple[str, ...] = ()) -> tuple[str, ...] | None:
    """Instruction set extensions a ``-march=MARCH`` build may use (``avx2``, ``avx512bw``, ...); None without a compiler."""
    macros = feature_macros(march, compiler, extra)
    if macros is None:
        return None
    names = (re.fullmatch(r"#define __([A-Z0-9_]+)__ 1", line) for line in macros)
    return tuple(sorted(m.group(1).lower() for m in names if m))


# ---------------------------------------------------------------- loading


def load() -> Any:
    """The ``llama_cpp`` module (llama-cpp-python's C API), once it is known to suit this CPU."""
    build = installed_build()
    if build.version is None:
        raise BackendError(f"the llama-cpp backend needs llama-cpp-python: run {REBUILD} (or pip install llama-cpp-python)")
    missing = build.missing_features()
    if missing:
        raise BackendError(
            f"llama-cpp-python {build.version} was built for a CPU with {' '.join(missing)}, which this one lacks "
            f"(it would stop with SIGILL); build it for this CPU: {REBUILD}"
        )
    try:
        import llama_cpp  # noqa: PLC0415
    except ImportError:
        raise BackendError(f"the llama-cpp backend needs llama-cpp-python: run {REBUILD} "
                           "(or pip install llama-cpp-python)") from None
    return llama_cpp


def has_amx_kernels(lib: Any) -> bool:
    """Whether the loaded llama.cpp was compiled with AMX kernels (see ``extra_buffer_types``)."""
    return "AMX" in lib.llama_print_system_info().decode(errors="replace")


# ---------------------------------------------------------------- the log


def _on_log(level: int, text: bytes, data: Any) -> None:
    global _LOG_LEVEL
    piece = text.decode(errors="replace")
    if level != 5:  # GGML_LOG_LEVEL_CONT continues the last piece
        _LOG_LEVEL = level
    sink = _LOG_SINK
    if sink is not None:
        sink.append(piece)
    if _LOG_ECHO and _LOG_LEVEL >= 2:  # info, warnings and errors; not debug
        sys.stderr.write(piece)


def _install(lib: Any) -> None:
    global _LOG_CALLBACK
    if _LOG_CALLBACK is None:
        _LOG_CALLBACK = lib.llama_log_callback(_on_log)
    lib.llama_log_set(_LOG_CALLBACK, ctypes.c_void_p(0))


def quiet_logs(lib: Any, *, echo: bool = False) -> None:
    """Take over llama.cpp's log for this process: silent, or every line to stderr with ``echo``."""
    global _LOG_ECHO
    with _LOG_LOCK:
        _LOG_ECHO = echo
        _install(lib)


@contextlib.contextmanager
def captured_logs(lib: Any) -> Iterator[list[str]]:
    """llama.cpp's log while the block runs, every level (debug included), as the pieces it was written in.

    One block at a time in a process: a second waits for the first.
    """
    global _LOG_SINK
    with _LOG_LOCK:
        _install(lib)
        _LOG_SINK = pieces = []
        try:
            yield pieces
        finally:
            _LOG_SINK = None


# ---------------------------------------------------------------- what a load did


@dataclass(frozen=True)
class LoadReport:
    """What llama.cpp's log said about a model's weights while it loaded them."""

    tensor_types: dict[str, int] = field(default_factory=dict)  # ggml type -> tensors of that type in the file
    repacked: dict[str, int] = field(default_factory=dict)  # ggml type -> tensors repacked for the CPU's kernels
    repack_mib: float = 0.0  # the CPU_REPACK buffer

    @property
    def q6_k_repacked(self) -> bool:
        return self.repacked.get("q6_K", 0) > 0

    @property
    def q6_k_left_plain(self) -> bool:
        """Other weights were repacked but the model's Q6_K weights were not: this llama.cpp has no kernels for them.

        Then every Q6_K matrix is multiplied once per token of a step, and steps of
        several tokens cost more than with perfalign's build.
        """
        return self.tensor_types.get("q6_K", 0) > 0 and bool(self.repacked) and not self.q6_k_repacked


_TYPE_LINE = re.compile(r"- type\s+(\w+):\s+(\d+) tensors")
_REPACK_LINE = re.compile(r"repack tensor \S+ with (\w+)_\d+x\d+")
_REPACK_BUFFER = re.compile(r"CPU_REPACK model buffer size\s*=\s*([\d.]+) MiB")


def read_load_log(text: str) -> LoadReport:
    """The :class:`LoadReport` of one model load, from llama.cpp's log of it (debug lines included)."""
    types = {name: int(count) for name, count in _TYPE_LINE.findall(text)}
    repacked: dict[str, int] = {}
    for name in _REPACK_LINE.findall(text):
        repacked[name] = repacked.get(name, 0) + 1
    sizes = [float(size) for size in _REPACK_BUFFER.findall(text)]
    return LoadReport(tensor_types=types, repacked=repacked, repack_mib=sum(sizes))
