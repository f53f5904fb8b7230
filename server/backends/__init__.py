"""Model backends: chat messages in, N sampled completions out.

:func:`create_backend` loads the backend for a model name (llama.cpp in
process by default; an OpenAI-compatible endpoint; transformers; a fake one
that replays replies, for tests only). Backends register through
:func:`register_backend`, the same hook an outside package would use. Every
backend takes one :class:`SamplingParams` and raises :class:`BackendError`
for anything the user must fix.
"""
from ..errors import BackendCancelled, BackendError
from ._base import Backend, Options, SampleCallback, SamplingParams
from ._factories import backend_for, backend_names, create_backend, register_backend, unregister_backend
from ._fake import FakeBackend, FakeOptions
from ._locked import LockedBackend

__all__ = [
    "Backend",
    "BackendCancelled",
    "BackendError",
    "FakeBackend",
    "FakeOptions",
    "LockedBackend",
    "Options",
    "SampleCallback",
    "SamplingParams",
    "backend_for",
    "backend_names",
    "create_backend",
    "register_backend",
    "unregister_backend",
]
