"""The model the language server samples from: loaded on the first job, reloaded when it changes.

Loading happens in a job's worker thread, never on the event loop. The model is
kept between jobs and loaded again when the settings name another model or
backend, or when its manifest, weights or adapter file changes on disk.
Generation is serialised: one model instance serves one request at a time.
"""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..backends import LockedBackend
from ..errors import ModelLoadError, one_line
from ..settings import Settings

logger = logging.getLogger(__name__)


def _stamp(path: Path | None) -> tuple[str, int, int] | None:
    if path is None:
        return None
    try:
        st = path.stat()
    except OSError:
        return (str(path), -1, -1)
    return (str(path), st.st_mtime_ns, st.st_size)


def model_files(settings: Settings) -> tuple[Any, ...]:
    """What identifies the loaded model on disk: its manifest, weights and adapter, with their mtimes."""
    if settings.backend == "fake":
        return (_stamp(Path(settings.endpoint)) if settings.endpoint else None,)
    try:
        from .. import registry

        manifest = registry.get_manifest(settings.model)
        resolved = registry.resolve(settings.model)
    except Exception:  # not resolvable now: the load reports why
        return ()
    return (
        _stamp(manifest.manifest_path),
        _stamp(resolved.model_path),
        _stamp(resolved.adapter_path),
    )


@dataclass
class Loaded:
    key: tuple[Any, ...]
    backend: LockedBackend
    name: str


class ModelCache:
    """One loaded model for the whole server."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loaded: Loaded | None = None

    @property
    def loaded_name(self) -> str | None:
        return self._loaded.name if self._loaded else None

    @property
    def backend(self) -> LockedBackend | None:
        """The loaded backend, if any (for reports)."""
        return self._loaded.backend if self._loaded else None

    def get(self, settings: Settings) -> LockedBackend:
        """The backend for ``settings``, loading or reloading it when needed."""
        key = (settings.backend, settings.model, settings.endpoint, model_files(settings))
        with self._lock:
            if self._loaded is not None and self._loaded.key == key:
                return self._loaded.backend
            if self._loaded is not None:
                logger.info("reloading the model: %s changed", settings.model)
                self.unload_locked()
            backend = self._load(settings)
            self._loaded = Loaded(key, LockedBackend(backend), f"{settings.backend}:{settings.model}")
            return self._loaded.backend

    def _load(self, settings: Settings) -> Any:
        from .. import backends

        try:
            return backends.create_backend(settings)
        except Exception as exc:
            raise ModelLoadError(f"cannot load model {settings.model!r}: {one_line(exc)}") from exc

    def unload_locked(self) -> None:
        if self._loaded is None:
            return
        close = getattr(self._loaded.backend.inner, "close", None)
        if callable(close):
            try:
                close()
            except Exception:
                logger.warning("closing the model failed", exc_info=True)
        self._loaded = None

    def unload(self) -> None:
        with self._lock:
            self.unload_locked()
