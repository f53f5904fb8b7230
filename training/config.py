"""How a command's settings are declared and read: fields with help, TOML or YAML files, flags.

Each command's config is a dataclass in its stage package (``trainers`` for
the four trainers, on their shared ``BaseConfig``; ``selfplay``, ``export``,
``evaluate``, ``corpus_gen``), its fields declared with :func:`opt`, and
``perfalign train`` (``cli.CONFIGS``) lists them. Every field carries a help
string; it becomes a CLI flag (``--learning-rate``) and a key in a TOML or
YAML file (``learning_rate``). A file may hold shared keys at the top level
and per-command tables (``[dpo]``, ``[grpo]``…); the command's table wins over
the top level and flags win over the file. Unknown keys are errors, never
ignored.
"""
from __future__ import annotations

import dataclasses
import json
import tomllib
import types
import typing
from collections.abc import Mapping
from dataclasses import field, fields
from pathlib import Path
from typing import Any

from perfalign.server.errors import PerfalignError


class ConfigError(PerfalignError, ValueError):
    """A configuration file or value that cannot be used; the message names the key."""


def opt(default: Any, help: str, **kw: Any) -> Any:  # noqa: A002
    if isinstance(default, list):
        return field(default_factory=lambda d=default: list(d), metadata={"help": help, **kw})
    return field(default=default, metadata={"help": help, **kw})


def _hint(cls: type, name: str) -> Any:
    return typing.get_type_hints(cls)[name]


def _coerce(cls: type, name: str, value: Any) -> Any:
    hint = _hint(cls, name)
    origin = typing.get_origin(hint)
    if origin is list:
        (item,) = typing.get_args(hint)
        if isinstance(value, str):
            value = [v for v in value.replace(",", " ").split() if v]
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{name} must be a list, got {value!r}")
        try:
            return [item(v) for v in value]
        except (TypeError, ValueError):
            raise ConfigError(f"{name} must be a list of {item.__name__}, got {value!r}") from None
    if origin in (types.UnionType, typing.Union):
        hint = next(a for a in typing.get_args(hint) if a is not type(None))
        if value is None:
            return None
    if hint is bool:
        if isinstance(value, str) and value.lower() in {"true", "false", "1", "0", "yes", "no"}:
            return value.lower() in {"true", "1", "yes"}
        if not isinstance(value, bool):
            raise ConfigError(f"{name} must be true or false, got {value!r}")
        return value
    if hint is int:
        if isinstance(value, bool):
            raise ConfigError(f"{name} must be a whole number, got {value!r}")
        try:
            return int(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{name} must be a whole number, got {value!r}") from None
    if hint is float:
        try:
            return float(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{name} must be a number, got {value!r}") from None
    return str(value)


def read_file(path: Path) -> dict[str, Any]:
    """Parse a TOML (``.toml``) or YAML (``.yaml``/``.yml``) config file."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from None
    if path.suffix in {".yaml", ".yml"}:
        import yaml

        try:
            data = yaml.safe_load(text) or {}
        except yaml.YAMLError as exc:
            raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    else:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a table of settings")
    return data


def build(configs: Mapping[str, type], command: str, file_data: dict[str, Any] | None = None,
          overrides: dict[str, Any] | None = None) -> Any:
    """``command``'s config (its class in ``configs``, every command's) from defaults, then the file's top level
    and ``[command]`` table, then ``overrides``; a key or table no command knows is an error."""
    cls = configs[command]
    names = {f.name for f in fields(cls)}
    values: dict[str, Any] = {}
    file_data = file_data or {}
    top = {k: v for k, v in file_data.items() if not isinstance(v, dict)}
    table = file_data.get(command, {})
    other_tables = {k for k, v in file_data.items() if isinstance(v, dict)} - {command} - set(configs)
    if other_tables:
        raise ConfigError(f"unknown table(s) {', '.join(sorted(other_tables))}; known: {', '.join(configs)}")
    for source in (top, table):
        for key, value in source.items():
            name = key.replace("-", "_")
            if name not in names:
                if source is top:
                    continue  # a shared key another command uses
                raise ConfigError(f"unknown key {key!r} for '{command}'; known: {', '.join(sorted(names))}")
            values[name] = _coerce(cls, name, value)
    unknown_top = {k for k in top if k.replace("-", "_") not in set().union(*(_names(c) for c in configs.values()))}
    if unknown_top:
        raise ConfigError(f"unknown key(s) {', '.join(sorted(unknown_top))}")
    for key, value in (overrides or {}).items():
        if value is None or value == ():
            continue
        if key not in names:
            raise ConfigError(f"unknown option {key!r} for '{command}'")
        values[key] = _coerce(cls, key, list(value) if isinstance(value, tuple) else value)
    return cls(**values)


def _names(cls: type) -> set[str]:
    return {f.name for f in fields(cls)}


def to_dict(config: Any) -> dict[str, Any]:
    return dataclasses.asdict(config)


def save(config: Any, path: Path) -> Path:
    """Store a config as JSON beside what it produced, so the run can be repeated."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"kind": type(config).__name__, **to_dict(config)}, indent=2, sort_keys=True) + "\n")
    return path


def help_of(cls: type, name: str) -> str:
    for f in fields(cls):
        if f.name == name:
            return str(f.metadata.get("help", ""))
    raise KeyError(name)
