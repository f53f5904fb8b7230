"""Settings shared by the CLI, the optimize pipeline and the language server.

Every field has a default; ``perfalign.toml`` in a workspace root and the
editor's ``workspace/configuration`` override them. Unknown keys are reported,
never silently accepted.
"""
from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from .errors import SettingsError

CONFIG_FILE = "perfalign.toml"


@dataclass
class Settings:
    model: str = "qwen2.5-coder-1.5b"
    backend: str = "llama-cpp"
    endpoint: str | None = None
    samples: int = 4
    threads: int = 2
    cc: str = "gcc"
    cxx: str = "g++"
    cflags: list[str] = field(default_factory=lambda: ["-O2"])
    threshold: float = 1.05
    compile_timeout_s: float = 60.0
    run_timeout_s: float = 60.0
    min_time_ms: float = 20.0
    repetitions: int = 21
    db_path: str | None = None
    sandbox: bool = True
    log_to_store: bool = True
    # Preference store: delete requests older than this many days (0 keeps them).
    store_retention_days: int = 365
    # Drop raw model outputs (the extracted code is kept) after this many days (0 keeps them).
    store_raw_output_days: int = 30
    # When non-empty, code of files outside these paths is stored as hashes only.
    store_code_under: list[str] = field(default_factory=list)


def _coerce(name: str, current: Any, value: Any) -> Any:
    if isinstance(current, bool) or name in {"sandbox", "log_to_store"}:
        if not isinstance(value, bool):
            raise SettingsError(f"setting {name!r} must be true or false, got {value!r}")
        return value
    if isinstance(current, int) and not isinstance(current, bool):
        if isinstance(value, bool) or not isinstance(value, int):
            raise SettingsError(f"setting {name!r} must be a whole number, got {value!r}")
        return value
    if isinstance(current, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise SettingsError(f"setting {name!r} must be a number, got {value!r}")
        return float(value)
    if isinstance(current, list):
        if isinstance(value, str):
            return value.split()
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise SettingsError(f"setting {name!r} must be a list of strings, got {value!r}")
        return list(value)
    if value is not None and not isinstance(value, str):
        raise SettingsError(f"setting {name!r} must be a string, got {value!r}")
    return value


def _snake(key: str) -> str:
    out = []
    for ch in key:
        if ch.isupper():
            out.append("_" + ch.lower())
        else:
            out.append(ch)
    return "".join(out).replace("-", "_")


def merged(base: Settings, overrides: dict[str, Any]) -> Settings:
    """Return ``base`` with ``overrides`` applied (camelCase or snake_case keys)."""
    names = {f.name for f in fields(Settings)}
    changes: dict[str, Any] = {}
    for key, value in overrides.items():
        name = _snake(key)
        if name not in names:
            raise SettingsError(f"unknown setting {key!r}; known settings: {', '.join(sorted(names))}")
        changes[name] = _coerce(name, getattr(base, name), value)
    return dataclasses.replace(base, **changes)


def find_config(start: Path) -> Path | None:
    """The nearest ``perfalign.toml`` in ``start`` or a parent folder."""
    start = start.resolve()
    for folder in [start, *start.parents] if start.is_dir() else [start.parent, *start.parent.parents]:
        candidate = folder / CONFIG_FILE
        if candidate.is_file():
            return candidate
    return None


def read_config(path: Path) -> dict[str, Any]:
    """The whole parsed ``perfalign.toml`` (tables: ``[perfalign]``, ``[functions.NAME]``, ``[project]``)."""
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: not valid TOML: {exc}") from None


def load_settings(start: Path | None = None, overrides: dict[str, Any] | None = None) -> Settings:
    """Defaults, then the ``[perfalign]`` table of the nearest ``perfalign.toml``, then ``overrides``."""
    settings = Settings()
    if start is not None and (config := find_config(start)) is not None:
        settings = merged(settings, read_config(config).get("perfalign", {}))
    if overrides:
        settings = merged(settings, {k: v for k, v in overrides.items() if v is not None})
    return settings
