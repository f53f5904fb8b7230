"""Settings from perfalign.toml, the editor and code: every field, its checks and its messages."""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from perfalign.server.errors import PerfalignError
from perfalign.server.settings import USER_ONLY, Settings, SettingsError, load_settings, user_config_path

# What `perfalign` reports (the language server's report shows this JSON): names and defaults.
DEFAULTS: dict[str, Any] = {
    "model": "qwen2.5-coder-1.5b-perf",
    "backend": "llama-cpp",
    "endpoint": None,
    "samples": 4,
    "threads": 2,
    "cc": "gcc",
    "cxx": "g++",
    "cflags": ["-O3"],
    "threshold": 1.05,
    "compile_timeout_s": 60.0,
    "run_timeout_s": 60.0,
    "min_time_ms": 20.0,
    "repetitions": 21,
    "db_path": None,
    "sandbox": True,
    "log_to_store": True,
    "store_retention_days": 365,
    "store_raw_output_days": 30,
    "store_code_under": [],
    "feedback_rounds": 1,
    "strategies": True,
    "job_budget_s": 50.0,
    "enough_suggestions": 1,
    "timing_lease_dir": None,
    "timing_priority": "foreground",
}

# A value other than the default for every setting, with the key an editor sends for it.
CHANGED: dict[str, tuple[str, Any]] = {
    "model": ("model", "tiny-q8"),
    "backend": ("backend", "openai"),
    "endpoint": ("endpoint", "http://127.0.0.1:8080/v1"),
    "samples": ("samples", 8),
    "threads": ("threads", 6),
    "cc": ("cc", "clang"),
    "cxx": ("cxx", "clang++"),
    "cflags": ("cflags", ["-O3", "-march=native"]),
    "threshold": ("threshold", 1.2),
    "compile_timeout_s": ("compileTimeoutS", 12.5),
    "run_timeout_s": ("runTimeoutS", 7.0),
    "min_time_ms": ("minTimeMs", 5.0),
    "repetitions": ("repetitions", 9),
    "db_path": ("dbPath", "/tmp/prefs.db"),
    "sandbox": ("sandbox", False),
    "log_to_store": ("logToStore", False),
    "store_retention_days": ("storeRetentionDays", 90),
    "store_raw_output_days": ("storeRawOutputDays", 0),
    "store_code_under": ("storeCodeUnder", ["src", "lib"]),
    "feedback_rounds": ("feedbackRounds", 2),
    "strategies": ("strategies", False),
    "job_budget_s": ("jobBudgetS", 90.0),
    "enough_suggestions": ("enoughSuggestions", 2),
    "timing_lease_dir": ("timingLeaseDir", "/srv/perfalign-timing"),
    "timing_priority": ("timingPriority", "background"),
}


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, float) and math.isinf(value):
        return "inf"
    return repr(value)


def write_config(folder: Path, values: dict[str, Any]) -> Path:
    path = folder / "perfalign.toml"
    path.write_text("[perfalign]\n" + "".join(f"{key} = {toml_value(value)}\n" for key, value in values.items()))
    return path


def test_the_defaults_and_their_json_are_unchanged() -> None:
    assert Settings().model_dump() == DEFAULTS
    assert json.loads(json.dumps(Settings().model_dump())) == DEFAULTS


def test_every_setting_round_trips_from_perfalign_toml(tmp_path: Path) -> None:
    assert set(CHANGED) == set(Settings.model_fields), "give every setting a changed value here"
    wanted = {name: value for name, (_, value) in CHANGED.items()}
    assert all(wanted[name] != DEFAULTS[name] for name in wanted)
    # The retention settings come from the user's own file only; the rest from the workspace's.
    write_config(tmp_path, {k: v for k, v in wanted.items() if k not in USER_ONLY})
    write_config(user_config_path().parent, {k: v for k, v in wanted.items() if k in USER_ONLY}).rename(
        user_config_path())
    settings = load_settings(tmp_path / "sub" / "kernel.c")
    assert settings.model_dump() == wanted


def test_every_setting_round_trips_from_camel_case_editor_json() -> None:
    sent = json.loads(json.dumps({key: value for key, value in CHANGED.values()}))
    settings = Settings().with_values(**sent)
    assert settings.model_dump() == {name: value for name, (_, value) in CHANGED.items()}


def test_camel_case_is_accepted_in_the_file_and_snake_case_from_code(tmp_path: Path) -> None:
    write_config(tmp_path, {"compileTimeoutS": 5, "store_code_under": "src"})
    settings = load_settings(tmp_path, {"minTimeMs": 3, "run_timeout_s": 4})
    assert (settings.compile_timeout_s, settings.store_code_under) == (5.0, ["src"])
    assert (settings.min_time_ms, settings.run_timeout_s) == (3.0, 4.0)


def test_a_string_of_flags_is_split_on_whitespace(tmp_path: Path) -> None:
    write_config(tmp_path, {"cflags": "-O3  -march=native\t-fno-math-errno", "store_code_under": "src lib"})
    settings = load_settings(tmp_path)
    assert settings.cflags == ["-O3", "-march=native", "-fno-math-errno"]
    assert settings.store_code_under == ["src", "lib"]


def test_a_whole_number_is_accepted_for_a_number_and_stays_a_float(tmp_path: Path) -> None:
    write_config(tmp_path, {"threshold": 2, "run_timeout_s": 30})
    settings = load_settings(tmp_path)
    assert settings.threshold == 2.0 and isinstance(settings.threshold, float)
    assert isinstance(settings.run_timeout_s, float)


@pytest.mark.parametrize(
    ("key", "value", "accepts"),
    [
        ("samples", "many", "a whole number"),
        ("samples", 2.5, "a whole number"),
        ("samples", True, "a whole number"),
        ("threads", False, "a whole number"),
        ("repetitions", 11.0, "a whole number"),
        ("threshold", "fast", "a finite number"),
        ("threshold", True, "a finite number"),
        ("threshold", math.inf, "a finite number"),
        ("sandbox", 1, "true or false"),
        ("log_to_store", "yes", "true or false"),
        ("cflags", ["-O3", 3], "a list of strings"),
        ("cflags", 3, "a list of strings"),
        ("model", 3, "a string"),
        ("db_path", ["a"], "a string"),
    ],
)
def test_a_value_of_the_wrong_type_is_named_with_what_the_setting_accepts(
    tmp_path: Path, key: str, value: Any, accepts: str
) -> None:
    config = write_config(tmp_path, {key: value})
    with pytest.raises(SettingsError) as caught:
        load_settings(tmp_path)
    message = str(caught.value)
    assert f"setting {key!r} must be {accepts}" in message
    assert str(config) in message and "\n" not in message


@pytest.mark.parametrize(
    ("key", "value", "accepts"),
    [
        ("samples", 0, "a whole number from 1 to 64"),
        ("samples", 65, "a whole number from 1 to 64"),
        ("threads", -3, "a whole number from 1 to 1024"),
        ("threads", 0, "a whole number from 1 to 1024"),
        ("threshold", 0.99, "a finite number of at least 1.0"),
        ("threshold", -1.5, "a finite number of at least 1.0"),
        ("compile_timeout_s", 0, "a finite number above 0"),
        ("run_timeout_s", -1.0, "a finite number above 0"),
        ("min_time_ms", -5, "a finite number of at least 0"),
        ("repetitions", 2, "a whole number of at least 3"),
        ("store_retention_days", -1, "a whole number of at least 0"),
        ("store_raw_output_days", -30, "a whole number of at least 0"),
        ("cc", "", "a non-empty string"),
        ("cxx", "", "a non-empty string"),
        ("timing_priority", "urgent", '"foreground" or "background"'),
    ],
)
def test_a_value_out_of_range_is_named_with_what_the_setting_accepts(
    tmp_path: Path, key: str, value: Any, accepts: str
) -> None:
    config = write_config(tmp_path, {key: value})
    if key in USER_ONLY:
        config.rename(user_config_path())
    with pytest.raises(SettingsError, match=f"setting '{key}' must be {accepts}, got {value!r}"):
        load_settings(tmp_path)


def test_the_edges_of_each_range_are_accepted() -> None:
    settings = Settings().with_values(
        samples=1, threads=1, repetitions=3, min_time_ms=0, store_retention_days=0, store_raw_output_days=0,
        threshold=1.0, compile_timeout_s=0.1,
    )
    assert (settings.samples, settings.threads, settings.repetitions, settings.min_time_ms) == (1, 1, 3, 0.0)
    assert Settings().with_values(samples=64, threads=1024).samples == 64


def test_an_editor_key_is_named_as_the_editor_sent_it() -> None:
    with pytest.raises(SettingsError, match="setting 'compileTimeoutS' must be a finite number above 0, got 0"):
        Settings().with_values(compileTimeoutS=0)


def test_an_unknown_key_is_reported_with_the_known_ones(tmp_path: Path) -> None:
    write_config(tmp_path, {"colour": "blue", "samples": 2})
    with pytest.raises(SettingsError) as caught:
        load_settings(tmp_path)
    message = str(caught.value)
    assert "unknown setting 'colour'; known settings: " in message
    assert all(name in message for name in DEFAULTS)


def test_every_problem_of_one_change_is_in_its_one_line_message() -> None:
    with pytest.raises(SettingsError) as caught:
        Settings().with_values(colour="blue", shade=3, samples=0, sandbox="no")
    message = str(caught.value)
    assert "unknown settings 'colour', 'shade'" in message
    assert "setting 'samples' must be" in message and "setting 'sandbox' must be true or false" in message
    assert "\n" not in message


def test_settings_errors_are_user_errors() -> None:
    with pytest.raises(SettingsError) as caught:
        Settings().with_values(threads=-3)
    assert isinstance(caught.value, PerfalignError) and isinstance(caught.value, ValueError)


def test_with_values_checks_what_it_copies_and_leaves_the_original_alone() -> None:
    base = Settings(samples=6)
    copy = base.with_values(threads=3, log_to_store=False)
    assert (copy.samples, copy.threads, copy.log_to_store) == (6, 3, False)
    assert (base.threads, base.log_to_store) == (2, True)
    with pytest.raises(SettingsError, match="'repetitions'"):
        base.with_values(repetitions=1)
    with pytest.raises(ValueError):
        base.threads = 8  # type: ignore[misc]


def test_overrides_of_none_leave_the_file_s_values(tmp_path: Path) -> None:
    write_config(tmp_path, {"samples": 6, "model": "tiny-q8"})
    settings = load_settings(tmp_path, {"samples": None, "model": None, "threads": 3})
    assert (settings.samples, settings.model, settings.threads) == (6, "tiny-q8", 3)


def test_a_perfalign_key_that_is_not_a_table_is_reported(tmp_path: Path) -> None:
    (tmp_path / "perfalign.toml").write_text('perfalign = "fast"\n')
    with pytest.raises(SettingsError, match=r"\[perfalign\] must be a table"):
        load_settings(tmp_path)


def test_broken_toml_is_reported_as_a_settings_error(tmp_path: Path) -> None:
    (tmp_path / "perfalign.toml").write_text("[perfalign\nsamples = 2\n")
    with pytest.raises(SettingsError, match="not valid TOML"):
        load_settings(tmp_path)


def test_the_users_file_comes_before_the_workspace_and_alone_sets_retention(tmp_path: Path) -> None:
    user_config_path().write_text("[perfalign]\nsamples = 6\nthreads = 3\nstore_retention_days = 30\n")
    write_config(tmp_path, {"threads": 5, "store_retention_days": 1, "storeRawOutputDays": 1})
    notes: list[str] = []
    settings = load_settings(tmp_path, notes=notes)
    assert (settings.samples, settings.threads) == (6, 5)
    assert (settings.store_retention_days, settings.store_raw_output_days) == (30, 30)
    assert len(notes) == 2 and all("is ignored there" in note and str(user_config_path()) in note for note in notes)
    user_config_path().write_text("[perfalign]\nthreads = -3\n")
    with pytest.raises(SettingsError, match=r"settings.toml: setting 'threads' must be a whole number from 1 to 1024"):
        load_settings(tmp_path)
