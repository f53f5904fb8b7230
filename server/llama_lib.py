"""llama.cpp's library as llama-cpp-python ships it: loading it, silencing its log, what this build can do.

The llama-cpp backend samples with it and the registry's quantizer child
requantizes with it; both load it through :func:`load`, so that a missing
install says how to fix it.
"""
from __future__ import annotations

import ctypes
from typing import Any

from .errors import BackendError

_LOG_CALLBACK: Any = None


def load() -> Any:
    """The ``llama_cpp`` module (llama-cpp-python's C API)."""
    try:
        import llama_cpp  # noqa: PLC0415
    except ImportError:
        raise BackendError("the llama-cpp backend needs llama-cpp-python: run make install "
                           "(or pip install llama-cpp-python)") from None
    return llama_cpp


def has_amx_kernels(lib: Any) -> bool:
    """Whether the loaded llama.cpp was compiled with AMX kernels (see ``extra_buffer_types``)."""
    return "AMX" in lib.llama_print_system_info().decode(errors="replace")


def quiet_logs(lib: Any) -> None:
    """Silence llama.cpp's log for this process (the callback is kept alive here)."""
    global _LOG_CALLBACK
    if _LOG_CALLBACK is None:
        _LOG_CALLBACK = lib.llama_log_callback(lambda level, text, data: None)
        lib.llama_log_set(_LOG_CALLBACK, ctypes.c_void_p(0))
