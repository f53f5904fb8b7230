"""``perfalign hotspots``: real runs under real callgrind and perf, ranked, kept, read back, and bad input."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfalign.server.cli import main
from perfalign.server.hotspots import (
    HotspotsError,
    binary_changed,
    hot_targets,
    load,
    profile_command,
    profile_path,
    ranked,
)
from perfalign.server.hotspots._profilers import choose

from .programs import build, build_cpp, many_functions

PERFALIGN = str(Path(sys.executable).parent / "perfalign")


def test_callgrind_ranks_the_hot_function_first_and_keeps_the_profile(tmp_path: Path) -> None:
    binary = build(tmp_path)
    profile = profile_command([str(binary), "20000"], workspace=tmp_path, cwd=tmp_path, profiler="callgrind")
    assert profile.profiler == "callgrind"
    names = [f.name for f in profile.functions]
    assert names[0] == "hot", names
    assert set(names) >= {"hot", "warm", "main"}
    first = profile.functions[0]
    assert first.path == "bench.c" and first.line == 6
    assert first.self_share > 0.8 and first.inclusive_share >= first.self_share
    main_fn = next(f for f in profile.functions if f.name == "main")
    assert main_fn.inclusive_share > 0.95 > main_fn.self_share  # main calls hot: its inclusive share holds hot's
    assert profile.overhead is not None and profile.overhead > 1  # callgrind is slower than the plain run

    kept = json.loads(profile_path(tmp_path).read_text())
    assert kept["command"] == [str(binary), "20000"] and kept["binary_sha256"] == profile.binary_sha256
    assert kept["functions"][0]["name"] == "hot" and len(kept["functions"][0]["body_sha256"]) == 64
    assert load(tmp_path) == profile
    assert binary_changed(profile) is None
    assert [h.stale for h in ranked(profile, tmp_path)] == [None] * len(profile.functions)
    assert not list(tmp_path.glob(".perfalign/.hotspots.*.tmp"))


def test_perf_ranks_the_hot_function_first_where_the_kernel_allows_it(tmp_path: Path) -> None:
    binary = build(tmp_path)
    choice = choose("auto", tmp_path)
    profile = profile_command([str(binary), "2000000"] if choice.name == "perf" else [str(binary), "20000"],
                              workspace=tmp_path, cwd=tmp_path, profiler="auto")
    assert profile.profiler == choice.name
    if choice.name == "perf":
        assert profile.unit == "sampled time"
    else:  # perf cannot run on this machine: the fallback is chosen and says why
        assert profile.profiler_note.startswith("perf cannot run")
    assert profile.functions[0].name == "hot", profile.functions
    assert profile.functions[0].self_share > 0.5


def test_the_cli_shows_the_ranking_and_json_and_what_went_stale(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    build(tmp_path)
    runner = CliRunner()
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(main, ["hotspots", "--profiler", "callgrind", "--", "./bench", "20000"],
                           catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "under callgrind" in result.output and "overhead" in result.output
    lines = result.output.splitlines()
    first = next(line for line in lines if line.strip().startswith("1 "))
    assert "hot  (bench.c:6)" in first
    doc = json.loads(runner.invoke(main, ["hotspots", "--json"], catch_exceptions=False).output)
    assert doc["functions"][0]["name"] == "hot" and doc["functions"][0]["stale"] is None
    assert doc["binary_changed"] is None and doc["profiler"] == "callgrind" and doc["overhead"] > 1

    # The body changes: that entry is stale. The binary is rebuilt: the whole profile is from another build.
    source = (tmp_path / "bench.c").read_text().replace("r < 40", "r < 20")
    build(tmp_path, source=source)
    doc = json.loads(runner.invoke(main, ["hotspots", "--json"], catch_exceptions=False).output)
    assert doc["functions"][0]["stale"] == "hot changed since the profile was taken"
    assert "was rebuilt since the profile was taken" in doc["binary_changed"]
    shown = runner.invoke(main, ["hotspots"], catch_exceptions=False).output
    assert "[stale: hot changed since the profile was taken]" in shown
    assert "stale: bench was rebuilt since the profile was taken" in shown


def test_optimize_hot_works_through_the_top_functions_that_still_apply(tmp_path: Path) -> None:
    build(tmp_path)
    profile_command(["./bench", "20000"], workspace=tmp_path, cwd=tmp_path, profiler="callgrind")
    assert hot_targets(tmp_path, 1) == [(tmp_path / "bench.c", "hot")]
    top3 = [name for _, name in hot_targets(tmp_path, 3)]
    assert top3[0] == "hot" and sorted(top3) == ["hot", "main", "warm"]
    with pytest.raises(HotspotsError, match="no function of .*other.c in the profile of .* still applies"):
        hot_targets(tmp_path, 5, [tmp_path / "other.c"])
    (tmp_path / "src").mkdir()
    assert hot_targets(tmp_path / "src", 1) == [(tmp_path / "bench.c", "hot")]  # found from a folder below
    (tmp_path / "bench.c").write_text((tmp_path / "bench.c").read_text().replace("r < 40", "r < 41"))
    assert "hot" not in [name for _, name in hot_targets(tmp_path, 3)]  # hot changed: its entry is stale
    with pytest.raises(HotspotsError, match="no profile in .* or a folder above it: run perfalign hotspots"):
        hot_targets(tmp_path.parent, 1)


# --- bad input ---------------------------------------------------------------------------------------------------


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PERFALIGN, "hotspots", *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, check=False)


def test_a_failing_command_is_reported_with_its_message_and_keeps_the_old_profile(tmp_path: Path) -> None:
    build(tmp_path)
    assert _cli(tmp_path, "--profiler", "callgrind", "--", "./bench", "20000").returncode == 0
    before = profile_path(tmp_path).read_bytes()
    proc = _cli(tmp_path, "--profiler", "callgrind", "--", "./bench", "20000", "fail")
    assert proc.returncode == 1
    assert "the command failed (exit status 2) before any profiling: bench: cannot open input.dat" in proc.stderr
    assert "its output is in" in proc.stderr
    assert profile_path(tmp_path).read_bytes() == before
    missing = _cli(tmp_path, "--", "./no-such-bench")
    assert missing.returncode == 1 and "cannot run ./no-such-bench" in missing.stderr


def test_a_run_past_the_time_limit_is_stopped_and_the_profilers_output_kept(tmp_path: Path) -> None:
    build(tmp_path)
    proc = _cli(tmp_path, "--profiler", "callgrind", "--time-limit", "5", "--", "./bench", "2000",
                "hang-when-profiled")
    assert proc.returncode == 1
    assert "the command under callgrind ran past the time limit of 5 s and was stopped" in proc.stderr
    folder = Path(proc.stderr.split("the profiler's are in ")[1].split(";")[0])
    assert folder.is_dir() and list(folder.glob("valgrind.*.log")), sorted(folder.iterdir())
    assert not profile_path(tmp_path).exists()  # nothing half-written
    plain = _cli(tmp_path, "--time-limit", "0.5", "--", "sleep", "30")
    assert "the command ran past the time limit of 0.5 s and was stopped; its output is in" in plain.stderr


def test_a_binary_without_debug_information_says_to_build_with_g(tmp_path: Path) -> None:
    build(tmp_path, debug=False)
    subprocess.run(["strip", "bench"], cwd=tmp_path, check=True)
    proc = _cli(tmp_path, "--profiler", "callgrind", "--", "./bench", "20000")
    assert proc.returncode == 1
    assert "bench has no debug information" in proc.stderr and "build it with -g" in proc.stderr
    assert not profile_path(tmp_path).exists()


def test_no_profiler_names_the_debian_packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(HotspotsError) as caught:
        choose("auto", tmp_path)
    message = str(caught.value)
    assert "perf is not installed (Debian package linux-perf)" in message
    assert "sudo apt-get install valgrind" in message
    with pytest.raises(HotspotsError, match="install it with: sudo apt-get install valgrind"):
        choose("callgrind", tmp_path)


def test_thousands_of_functions_are_ranked_and_the_hot_one_comes_first(tmp_path: Path) -> None:
    build(tmp_path, source=many_functions(3000), name="many")
    profile = profile_command(["./many"], workspace=tmp_path, cwd=tmp_path, profiler="callgrind")
    assert profile.functions[0].name == "hot"
    assert len(profile.functions) <= 500
    assert profile.left_out > 0  # the functions under 0.1 % of the run are counted, not kept


def test_optimize_hot_runs_the_pipeline_on_the_hottest_functions_in_order(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    build(tmp_path)
    profile_command(["./bench", "20000"], workspace=tmp_path, cwd=tmp_path, profiler="callgrind")
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps(["no code here"] * 4))
    (tmp_path / "perfalign.toml").write_text(
        f'[perfalign]\nbackend = "fake"\nendpoint = "{replies}"\nlog_to_store = false\n')
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    result = runner.invoke(main, ["optimize", "--hot", "2", "--samples", "1"], catch_exceptions=False)
    worked = [line for line in result.output.splitlines() if line.startswith("--- ")]
    assert worked[0] == f"--- hot ({tmp_path / 'bench.c'})" and len(worked) == 2, result.output
    assert result.exit_code == 3  # the fake model wrote nothing usable for either
    refused = runner.invoke(main, ["optimize", "--hot", "1", "--function", "hot"])
    assert refused.exit_code == 2 and "--hot N picks the functions itself" in refused.output
    one = runner.invoke(main, ["optimize"])
    assert one.exit_code == 2 and "give one FILE (or --hot N" in one.output
    # A batch run over the tree with --hot N works on those functions only, hottest first.
    batch = runner.invoke(main, ["optimize", "--all", ".", "--hot", "2", "--samples", "1", "--report", "out",
                                 "--json"], catch_exceptions=False)
    assert batch.exit_code == 0, batch.output
    assert json.loads(batch.stdout)["functions"] == 2
    state = json.loads((tmp_path / "out" / "state.json").read_text())
    assert sorted(state["results"]) == sorted(f"bench.c::{name}::serial" for _, name in hot_targets(tmp_path, 2))


def test_without_perf_callgrind_is_chosen_and_the_reason_reported(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    binary = build(tmp_path / "ws")
    tools = tmp_path / "bin"  # every tool the run needs, but no perf
    tools.mkdir()
    for tool in ("valgrind", "callgrind_annotate", "perl", "nm"):
        found = shutil.which(tool)
        assert found is not None, tool
        (tools / tool).write_text(f'#!/bin/sh\nexec {found} "$@"\n')
        (tools / tool).chmod(0o755)
    monkeypatch.setenv("PATH", str(tools))
    profile = profile_command([str(binary), "20000"], workspace=binary.parent, cwd=binary.parent)
    assert profile.profiler == "callgrind"
    assert profile.profiler_note == "perf cannot run: perf is not installed (Debian package linux-perf)"
    assert profile.functions[0].name == "hot"


def test_cpp_names_are_qualified_and_a_method_inside_its_class_is_said_to_be_out_of_reach(tmp_path: Path) -> None:
    build_cpp(tmp_path)
    profile = profile_command(["./k"], workspace=tmp_path, cwd=tmp_path, profiler="callgrind")
    assert "k::helper" in [f.name for f in profile.functions]
    # The code actions do not offer a method defined inside its class, so the ranking does not either: its time
    # is said to be in workspace code that is not a function perfalign works on, with where it is.
    assert profile.unlisted_share > 0.5
    assert profile.unlisted_top[0].object == "k.cpp:5" and profile.unlisted_top[0].symbol.startswith("k::Acc::total(")
