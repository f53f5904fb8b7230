"""Model backends and the table that makes them.

Built-in backends register through :func:`register_backend`, the same hook an
outside package would use; modules are imported only when their backend is
created, so listing backends imports nothing heavy.
"""
from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from typing import Any

from perfalign.server.backends.base import Backend, BackendCancelled, BackendError, Options
from perfalign.server.registry import RegistryError, ResolvedModel, resolve
from perfalign.server.settings import Settings

# factory(model, settings, options) -> Backend
Factory = Callable[[ResolvedModel, Settings, dict[str, Any]], Backend]

_FACTORIES: dict[str, Factory | str] = {}


def register_backend(name: str, factory: Factory | str) -> None:
    """Make backend ``name`` available; ``factory`` may be "module:callable" (imported lazily)."""
    _FACTORIES[name] = factory


def unregister_backend(name: str) -> None:
    _FACTORIES.pop(name, None)


def backend_names() -> list[str]:
    return sorted(_FACTORIES)


def _factory(name: str) -> Factory:
    entry = _FACTORIES.get(name)
    if entry is None:
        raise BackendError(f"unknown backend {name!r}; known backends: {', '.join(backend_names())}")
    if isinstance(entry, str):
        module_name, attr = entry.split(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise BackendError(f"the {name} backend needs the package {exc.name!r}: pip install {exc.name}") from None
        entry = getattr(module, attr)
        _FACTORIES[name] = entry
    return entry  # type: ignore[return-value]


def create_backend(settings: Settings, *, model: str | None = None, options: dict[str, Any] | None = None) -> Backend:
    """Load the backend for ``model`` (default ``settings.model``).

    ``settings.backend`` picks the backend, except that a model whose manifest
    names another backend (an endpoint, a transformers folder) uses that one.
    The fake backend needs no model.
    """
    name = model or settings.model
    if settings.backend == "fake":
        return _factory("fake")(ResolvedModel(name=name, backend="fake", prompt_format="chatml"), settings, options or {})
    try:
        resolved = resolve(name)
    except RegistryError as exc:
        raise BackendError(str(exc)) from None
    backend = resolved.backend if resolved.backend != "llama-cpp" else settings.backend
    if settings.backend == "openai" and settings.endpoint and resolved.backend == "llama-cpp":
        backend = "openai"
    merged = {**resolved.options, **(options or {})}
    return _factory(backend)(resolved, settings, merged)


_SHARED: dict[tuple[Any, ...], Backend] = {}
_SHARED_LOCK = threading.Lock()


def shared_backend(settings: Settings, *, model: str | None = None) -> Backend:
    """A backend kept loaded between requests (the language server loads a model once)."""
    key = (model or settings.model, settings.backend, settings.endpoint)
    with _SHARED_LOCK:
        if key not in _SHARED:
            for old in list(_SHARED):
                _SHARED.pop(old).close()
            _SHARED[key] = create_backend(settings, model=model)
        return _SHARED[key]


def release_shared() -> None:
    with _SHARED_LOCK:
        for key in list(_SHARED):
            _SHARED.pop(key).close()


register_backend("llama-cpp", "perfalign.server.backends.llama_cpp:create")
register_backend("openai", "perfalign.server.backends.openai:create")
register_backend("transformers", "perfalign.server.backends.transformers:create")
register_backend("fake", "perfalign.server.backends.fake:create")

__all__ = [
    "Backend",
    "BackendCancelled",
    "BackendError",
    "Options",
    "backend_names",
    "create_backend",
    "register_backend",
    "release_shared",
    "shared_backend",
    "unregister_backend",
]
