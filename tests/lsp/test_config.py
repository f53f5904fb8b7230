"""Editor settings and perfalign.toml as the language server reads them."""
from __future__ import annotations

from pathlib import Path

from perfalign.server.lsp._config import apply_each, editor_section, effective_settings
from perfalign.server.lsp._text import LineIndex, same_code


def test_editor_values_override_the_workspace_file_which_overrides_defaults(tmp_path: Path) -> None:
    (tmp_path / "perfalign.toml").write_text('[perfalign]\nsamples = 6\nthreads = 3\ncflags = "-O3 -march=native"\n')
    eff = effective_settings(tmp_path, {"threads": 4, "compileTimeoutS": 10})
    assert eff.errors == []
    assert (eff.settings.samples, eff.settings.threads, eff.settings.compile_timeout_s) == (6, 4, 10.0)
    assert eff.settings.cflags == ["-O3", "-march=native"]
    assert "samples=6" in eff.describe()


def test_each_invalid_setting_is_reported_and_keeps_its_default(tmp_path: Path) -> None:
    eff = effective_settings(tmp_path, {"samples": "many", "colour": "blue", "threads": 8})
    assert eff.settings.samples == 4 and eff.settings.threads == 8
    assert len(eff.errors) == 2
    assert any("'samples'" in e and "whole number" in e for e in eff.errors)
    assert any("'colour'" in e and "unknown setting" in e for e in eff.errors)


def test_a_value_out_of_range_from_the_editor_is_reported_and_the_default_kept(tmp_path: Path) -> None:
    eff = effective_settings(tmp_path, {"threads": -3, "samples": 6, "runTimeoutS": 0, "cflags": "-O3 -g"})
    assert (eff.settings.threads, eff.settings.run_timeout_s) == (2, 60.0)
    assert (eff.settings.samples, eff.settings.cflags) == (6, ["-O3", "-g"])
    assert len(eff.errors) == 2
    threads = next(e for e in eff.errors if "'threads'" in e)
    assert threads.startswith("editor settings: ") and "from 1 to 1024" in threads and "got -3" in threads
    assert threads.endswith("keeping threads = 2")
    assert any("'runTimeoutS'" in e and "above 0" in e for e in eff.errors)


def test_a_bad_editor_value_keeps_the_workspace_file_s_value(tmp_path: Path) -> None:
    (tmp_path / "perfalign.toml").write_text("[perfalign]\nthreads = 4\nrepetitions = 2\nsamples = 3\n")
    eff = effective_settings(tmp_path, {"threads": True, "samples": 5})
    assert (eff.settings.threads, eff.settings.repetitions, eff.settings.samples) == (4, 21, 5)
    assert len(eff.errors) == 2
    file_error = next(e for e in eff.errors if "'repetitions'" in e)
    assert file_error.startswith(str(tmp_path / "perfalign.toml")) and "at least 3" in file_error
    assert any("'threads'" in e and "whole number" in e and e.endswith("keeping threads = 4") for e in eff.errors)
    assert "threads=4" in eff.describe() and "samples=5" in eff.describe()


def test_apply_each_keeps_every_good_key_around_the_bad_ones() -> None:
    base, errors = apply_each(
        effective_settings(None, None).settings,
        {"samples": 0, "minTimeMs": 2, "colour": "blue", "sandbox": False, "endpoint": None, "logToStore": "no"},
        "editor settings",
    )
    assert (base.samples, base.min_time_ms, base.sandbox, base.log_to_store) == (4, 2.0, False, True)
    assert len(errors) == 3
    assert any("unknown setting 'colour'" in e and e.endswith("ignoring it") for e in errors)


def test_a_broken_workspace_file_is_reported_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "perfalign.toml").write_text("[perfalign\nsamples = 2\n")
    eff = effective_settings(tmp_path, {"samples": 2})
    assert eff.settings.samples == 2
    assert len(eff.errors) == 1 and "not valid TOML" in eff.errors[0]


def test_editor_section_accepts_the_section_or_the_whole_object() -> None:
    assert editor_section({"perfalign": {"samples": 2}}) == {"samples": 2}
    assert editor_section({"samples": 2}) == {"samples": 2}
    assert editor_section(None) == {}


def test_positions_count_utf16_units_and_bytes_round_trip() -> None:
    text = "// héllo 😀\nint f(void) { return 1; }\n"
    index = LineIndex.of(text)
    offset = text.encode().index(b"int")
    assert index.position(offset) == (1, 0)
    emoji_end = len("// héllo 😀".encode())
    assert index.position(emoji_end, "utf-16") == (0, len("// héllo ") + 2)
    assert index.position(emoji_end, "utf-8") == (0, emoji_end)
    assert index.offset(0, len("// héllo ") + 2, "utf-16") == emoji_end


def test_same_code_ignores_layout_but_not_content() -> None:
    assert same_code("int f() {\n  return 1;\n}", "int f() { return 1; }")
    assert same_code("int f() { return 1; }", "/* helper */ static int g(){return 2;}\nint f() { return 1; }")
    assert not same_code("int f() { return 2; }", "int f() { return 1; }")
    assert not same_code(None, "int f() { return 1; }")
