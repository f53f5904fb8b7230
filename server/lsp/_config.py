"""Settings for the language server: defaults, the user's settings file, ``perfalign.toml``, then the editor's.

The editor's settings arrive as the ``perfalign`` section of
``workspace/configuration``, of ``didChangeConfiguration`` or of the
``initializationOptions``. Each key is applied on its own: a key perfalign does
not understand, a value of the wrong type or out of range (``threads = -3``) is
reported and that setting keeps the value it had (the default, or the
workspace file's); the other keys still apply. A workspace file's retention
settings (``settings.USER_ONLY``) are reported and ignored: only the user's
own settings decide how long the store keeps their data.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..settings import CONFIG_FILE, Settings, SettingsError, find_config, read_config, user_settings, workspace_table

SECTION = "perfalign"


@dataclass
class EffectiveSettings:
    """The settings in force and every problem met while building them."""

    settings: Settings
    errors: list[str] = field(default_factory=list)
    config_file: Path | None = None

    def describe(self) -> str:
        """One line per setting, for the server log at start and after each change."""
        values = ", ".join(f"{name}={value!r}" for name, value in self.settings.model_dump().items())
        where = f" (with {self.config_file})" if self.config_file else ""
        return f"effective settings{where}: {values}"


def editor_section(value: Any) -> dict[str, Any]:
    """The ``perfalign`` part of what an editor sent: a section, or the whole settings object."""
    if not isinstance(value, dict):
        return {}
    inner = value.get(SECTION)
    if isinstance(inner, dict):
        return inner
    return value


def apply_each(base: Settings, overrides: dict[str, Any], origin: str) -> tuple[Settings, list[str]]:
    """Apply ``overrides`` key by key; invalid keys are reported and skipped."""
    settings = base
    errors: list[str] = []
    for key, value in overrides.items():
        if value is None:
            continue
        try:
            settings = settings.with_values(**{key: value})
        except SettingsError as exc:
            name = Settings.name_of(key)
            kept = f"keeping {name} = {getattr(settings, name)!r}" if name else "ignoring it"
            errors.append(f"{origin}: {exc}; {kept}")
    return settings, errors


def effective_settings(root: Path | None, editor: dict[str, Any] | None) -> EffectiveSettings:
    """Defaults, the user's settings file, the workspace's ``perfalign.toml`` (``[perfalign]``), the editor's values."""
    errors: list[str] = []
    try:
        settings = user_settings()
    except SettingsError as exc:
        errors.append(f"{exc}; ignoring it")
        settings = Settings()
    except OSError as exc:
        errors.append(f"cannot read your settings file: {exc.strerror}; ignoring it")
        settings = Settings()
    config_file = find_config(root) if root is not None and root.exists() else None
    if config_file is not None:
        try:
            table = read_config(config_file).get(SECTION, {})
        except SettingsError as exc:
            errors.append(f"{exc}; ignoring {CONFIG_FILE}")
            table = {}
        except OSError as exc:
            errors.append(f"cannot read {config_file}: {exc.strerror}; ignoring it")
            table = {}
        if isinstance(table, dict):
            table, ignored = workspace_table(table, config_file)
            errors.extend(ignored)
            settings, problems = apply_each(settings, table, str(config_file))
            errors.extend(problems)
        else:
            errors.append(f"{config_file}: [perfalign] must be a table; ignoring it")
    if editor:
        settings, problems = apply_each(settings, editor, "editor settings")
        errors.extend(problems)
    return EffectiveSettings(settings, errors, config_file)
