"""Settings shared by the CLI, the optimize pipeline and the language server.

Every field has a default; the user's own settings file
(``$PERFALIGN_HOME/settings.toml``), then ``perfalign.toml`` in a workspace root
and then the editor's ``workspace/configuration`` override them. How long the
preference store keeps the user's data (:data:`USER_ONLY`) is the user's own
decision: a workspace's ``perfalign.toml`` cannot set it. Keys are snake_case
(``compile_timeout_s``) or camelCase (``compileTimeoutS``). Unknown keys, values
of the wrong type and values out of range are reported as a
:class:`SettingsError` that names the setting and what it accepts, never
silently accepted.
"""
from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from .errors import SettingsError

CONFIG_FILE = "perfalign.toml"
# The user's own settings, in the user directory (paths.home_dir()).
USER_CONFIG_FILE = "settings.toml"
# Settings only the user's own settings (the user file, the editor, the command line) may set:
# how long the preference store keeps the user's data. A workspace's perfalign.toml cannot.
# Nor where the machine's timing lease is kept: a workspace cannot take its timing out of the machine's turn.
USER_ONLY = frozenset({"store_retention_days", "store_raw_output_days", "timing_lease_dir"})


class Settings(BaseModel):
    """The settings in force; copy with :meth:`with_values`, which validates."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        strict=True,  # a bool is not a number, a number is not a string; an int is still accepted for a float
        allow_inf_nan=False,
        alias_generator=to_camel,
        populate_by_name=True,
    )

    model: str = "qwen2.5-coder-1.5b-perf"
    backend: str = "llama-cpp"
    endpoint: str | None = None
    samples: int = Field(4, ge=1, le=64)
    threads: int = Field(2, ge=1, le=1024)
    cc: str = Field("gcc", min_length=1)
    cxx: str = Field("g++", min_length=1)
    # Without a compile_commands.json entry, candidates are built and timed at these (the level HPC code ships at).
    cflags: list[str] = Field(default_factory=lambda: ["-O3"])
    # At least 1: a suggestion is never shown unless its whole interval says faster.
    threshold: float = Field(1.05, ge=1.0)
    compile_timeout_s: float = Field(60.0, gt=0)
    run_timeout_s: float = Field(60.0, gt=0)
    # 0 times every function at its smallest problem size.
    min_time_ms: float = Field(20.0, ge=0)
    # The speedup's interval and rank test need at least 3 timings of each side.
    repetitions: int = Field(21, ge=3)
    db_path: str | None = None
    sandbox: bool = True
    log_to_store: bool = True
    # Preference store: delete requests older than this many days (0 keeps them).
    store_retention_days: int = Field(365, ge=0)
    # Drop raw model outputs (the extracted code is kept) after this many days (0 keeps them).
    store_raw_output_days: int = Field(30, ge=0)
    # When non-empty, code of files outside these paths is stored as hashes only.
    store_code_under: list[str] = Field(default_factory=list)
    # Feedback rounds after the first: failed candidates are shown their error and repaired,
    # correct but not faster ones their timing and improved (0 switches them off).
    feedback_rounds: int = Field(1, ge=0, le=5)
    # Each sample but the last is asked for a different strategy that an analysis of the function ranked (loop
    # interchange, hoisting, an array-section reduction, ...); false leaves every sample the plain prompt.
    strategies: bool = True
    # No feedback round starts, and none goes on, once the job has run this many seconds.
    job_budget_s: float = Field(50.0, gt=0)
    # Feedback rounds stop as soon as this many verified suggestions exist.
    enough_suggestions: int = Field(1, ge=1, le=64)
    # The machine-wide timing lease's directory (default: the user's cache; a directory every user can write
    # when several share the machine).
    timing_lease_dir: str | None = None
    # Who goes first when two perfalign processes wait to time: what the user asked for now ("foreground"), or
    # batches, self-play and evaluation ("background"; their front ends set it).
    timing_priority: Literal["foreground", "background"] = "foreground"

    @field_validator("cflags", "store_code_under", mode="before")
    @classmethod
    def _split_string(cls, value: Any) -> Any:
        """``cflags = "-O3 -march=native"`` is the list of its whitespace-separated words."""
        return value.split() if isinstance(value, str) else value

    @classmethod
    def name_of(cls, key: str) -> str | None:
        """The field that ``key`` (snake_case or camelCase) sets, or None for a key perfalign does not know."""
        return _names_by_key().get(key)

    def with_values(self, /, **changes: Any) -> Settings:
        """A copy with ``changes`` (snake_case or camelCase keys) applied and checked.

        Raises :class:`SettingsError` naming each unknown key and each value
        that does not fit, with what that setting accepts.
        """
        names = _names_by_key()
        values = self.model_dump()
        given: dict[str, str] = {}
        unknown: list[str] = []
        for key, value in changes.items():
            name = names.get(key)
            if name is None:
                unknown.append(key)
                continue
            values[name] = value
            given[name] = key
        problems = []
        if unknown:
            listed = ", ".join(repr(k) for k in unknown)
            plural = "s" if len(unknown) > 1 else ""
            problems.append(f"unknown setting{plural} {listed}; known settings: {', '.join(sorted(Settings.model_fields))}")
        try:
            settings = type(self).model_validate(values)
        except ValidationError as exc:
            names_in_error = dict.fromkeys(str(err["loc"][0]) for err in exc.errors() if err["loc"])
            problems.extend(
                f"setting {given.get(name, name)!r} must be {_accepts(name)}, got {values.get(name)!r}"
                for name in names_in_error
            )
        if problems:
            raise SettingsError("; ".join(problems))
        return settings


def _names_by_key() -> dict[str, str]:
    """Every accepted key (the field's name and its camelCase alias) and the field it sets."""
    names: dict[str, str] = {}
    for name, info in Settings.model_fields.items():
        names[name] = name
        if info.alias:
            names[info.alias] = name
    return names


_KINDS: dict[Any, str] = {
    bool: "true or false",
    int: "a whole number",
    float: "a finite number",
    str: "a string",
    str | None: "a string",
    list[str]: "a list of strings (or one string of space-separated words)",
    Literal["foreground", "background"]: "\"foreground\" or \"background\"",
}


def _accepts(name: str) -> str:
    """What setting ``name`` accepts, in words: ``a whole number from 1 to 64``."""
    info = Settings.model_fields[name]
    kind = _KINDS.get(info.annotation, "a value of its type")
    low, high, above, min_length = (
        next((getattr(m, bound) for m in info.metadata if hasattr(m, bound)), None)
        for bound in ("ge", "le", "gt", "min_length")
    )
    if min_length:
        return f"a non-empty {kind.removeprefix('a ')}"
    if low is not None and high is not None:
        return f"{kind} from {low} to {high}"
    if low is not None:
        return f"{kind} of at least {low}"
    if above is not None:
        return f"{kind} above {above}"
    return kind


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


def user_config_path() -> Path:
    """The user's own settings file: ``settings.toml`` in the user directory."""
    from .paths import home_dir

    return home_dir() / USER_CONFIG_FILE


def read_table(path: Path) -> dict[str, Any]:
    """The ``[perfalign]`` table of a settings file (empty when it has none)."""
    table = read_config(path).get("perfalign", {})
    if not isinstance(table, dict):
        raise SettingsError(f"{path}: [perfalign] must be a table")
    return table


def user_settings(base: Settings | None = None) -> Settings:
    """``base`` (the defaults) with the user's own settings file applied, when there is one."""
    settings = base or Settings()
    path = user_config_path()
    if not path.is_file():
        return settings
    try:
        return settings.with_values(**read_table(path))
    except SettingsError as exc:
        message = str(exc)
        raise SettingsError(message if message.startswith(str(path)) else f"{path}: {message}") from None


def workspace_table(table: dict[str, Any], config: Path) -> tuple[dict[str, Any], list[str]]:
    """A workspace file's ``[perfalign]`` table without the user-only settings, and a note for each one it set."""
    kept: dict[str, Any] = {}
    notes: list[str] = []
    for key, value in table.items():
        if Settings.name_of(key) in USER_ONLY:
            notes.append(
                f"{config}: {key} is ignored there: how long the preference store keeps your data is set only in "
                f"your own settings ({user_config_path()} or the editor's settings)"
            )
        else:
            kept[key] = value
    return kept, notes


def load_settings(
    start: Path | None = None, overrides: dict[str, Any] | None = None, notes: list[str] | None = None
) -> Settings:
    """Defaults, the user's settings file, the ``[perfalign]`` table of the nearest ``perfalign.toml``, ``overrides``.

    The workspace file's user-only settings (:data:`USER_ONLY`) are ignored; ``notes`` collects a line for each.
    """
    settings = user_settings()
    if start is not None and (config := find_config(start)) is not None:
        table, ignored = workspace_table(read_table(config), config)
        if notes is not None:
            notes.extend(ignored)
        try:
            settings = settings.with_values(**table)
        except SettingsError as exc:
            raise SettingsError(f"{config}: {exc}") from None
    if overrides:
        settings = settings.with_values(**{k: v for k, v in overrides.items() if v is not None})
    return settings
