"""The table of backends: built-in ones register through the same hook as outside ones.

Modules are imported only when their backend is created, so listing backends
imports nothing heavy.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from ..errors import BackendError, RegistryError
from ..registry import ResolvedModel, resolve
from ..settings import Settings
from ._base import Backend

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


def backend_for(model: ResolvedModel, settings: Settings, options: dict[str, Any] | None = None) -> Backend:
    """Load the backend ``model.backend`` names for a model resolved already (a file, an adapter)."""
    return _factory(model.backend)(model, settings, options or {})


register_backend("llama-cpp", "perfalign.server.backends._llama_cpp:create")
register_backend("openai", "perfalign.server.backends._openai:create")
register_backend("transformers", "perfalign.server.backends._transformers:create")
register_backend("fake", "perfalign.server.backends._fake:create")
