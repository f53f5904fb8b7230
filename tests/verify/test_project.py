"""The project-command fallback on a small project with a Makefile, a test and a bench program."""
from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from perfalign.server.settings import Settings, SettingsError
from perfalign.server.verdict import Status
from perfalign.server.verify.sandbox import _sandbox as sandbox
from perfalign.server.verify._project import load_project, verify_with_project

PROJECT = Path(__file__).resolve().parents[1] / "projects" / "colsums"

ROW_ORDER = """void column_sums(void)
{
    for (int j = 0; j < GRID_N; j++)
        sums[j] = 0.0;
    for (int i = 0; i < GRID_N; i++)
        for (int j = 0; j < GRID_N; j++)
            sums[j] += grid[i][j];
}"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    dest = tmp_path / "colsums"
    shutil.copytree(PROJECT, dest)
    return dest


def verify(project: Path, code: str, **settings: object) -> object:
    return verify_with_project(project / "grid.c", "column_sums", code, mode="serial",
                               settings=Settings(**settings))  # type: ignore[arg-type]


@pytest.mark.parametrize("use_sandbox", [True, False], ids=["bubblewrap", "limits"])
def test_faster_candidate_is_built_tested_and_timed(project: Path, use_sandbox: bool) -> None:
    messages: list[str] = []
    verdict = verify_with_project(project / "grid.c", "column_sums", ROW_ORDER, mode="serial",
                                  settings=Settings(sandbox=use_sandbox), progress=messages.append)
    assert verdict.path == "project"
    assert verdict.status is Status.FASTER, verdict.detail
    assert verdict.speedup is not None and verdict.speedup > 1.3
    assert verdict.ci95 is not None and verdict.ci95[0] > 1.05
    assert len(verdict.timings["baseline"]) == len(verdict.timings["candidate"]) == 7
    assert any("building" in m for m in messages) and any("timing" in m for m in messages)
    # The user's project is untouched and unbuilt.
    assert (project / "grid.c").read_text() == (PROJECT / "grid.c").read_text()
    assert not (project / "bench").exists()


def test_wrong_candidate_fails_the_tests(project: Path) -> None:
    wrong = ROW_ORDER.replace("sums[j] += grid[i][j];", "sums[j] += grid[i][j] * 0.5;")
    verdict = verify(project, wrong)
    assert verdict.status is Status.INCORRECT
    assert verdict.path == "project"
    assert "column 0" in verdict.detail


def test_broken_candidate_is_a_compile_error(project: Path) -> None:
    verdict = verify(project, "void column_sums(void) { sums[0] = undefined_name; }")
    assert verdict.status is Status.COMPILE_ERROR
    assert "undefined_name" in verdict.detail


def test_unsafe_candidate_is_rejected_before_building(project: Path) -> None:
    verdict = verify(project, 'void column_sums(void) { system("touch /tmp/owned"); }')
    assert verdict.status is Status.REJECTED_UNSAFE
    assert "system" in verdict.detail


def test_hanging_candidate_times_out(project: Path) -> None:
    config = (project / "perfalign.toml").read_text().replace("test_timeout_s = 60", "test_timeout_s = 1")
    (project / "perfalign.toml").write_text(config)
    slow = "void column_sums(void) { volatile unsigned long k = 0; for (;;) k++; }"
    verdict = verify(project, slow)
    assert verdict.status is Status.TIMEOUT
    assert "time limit" in verdict.detail and "make -s check" in verdict.detail


def test_config_names_functions_for_the_project_path(project: Path) -> None:
    config = load_project(project / "grid.c")
    assert config is not None
    assert config.wants_project("column_sums")
    assert not config.wants_project("fill_grid")
    assert config.build == "make -s" and config.runs == 7 and config.functions == ["column_sums"]


def test_missing_or_bad_config_is_explained(tmp_path: Path, project: Path) -> None:
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    (lonely / "f.c").write_text("int f(int x) { return x; }\n")
    verdict = verify_with_project(lonely / "f.c", "f", "int f(int x) { return x; }", mode="serial",
                                  settings=Settings())
    assert verdict.status is Status.UNSUPPORTED and "[project]" in verdict.detail
    (project / "perfalign.toml").write_text('[project]\nbuild = "make"\ntest = "make check"\n')
    with pytest.raises(SettingsError, match="bench"):
        load_project(project / "grid.c")
    verdict = verify(project, ROW_ORDER)
    assert verdict.status is Status.UNSUPPORTED and "bench" in verdict.detail


def test_unknown_function_is_explained(project: Path) -> None:
    verdict = verify_with_project(project / "grid.c", "row_sums", ROW_ORDER, mode="serial", settings=Settings())
    assert verdict.status is Status.UNSUPPORTED
    assert "row_sums" in verdict.detail


def test_cancel_stops_the_work(project: Path) -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(sandbox.Cancelled):
        verify_with_project(project / "grid.c", "column_sums", ROW_ORDER, mode="serial", settings=Settings(),
                            cancel=cancel)


def test_route_follows_the_config(project: Path, tmp_path: Path) -> None:
    from perfalign.server.verify._project import project_route

    assert project_route(project / "grid.c", "column_sums") == "project"
    assert project_route(project / "grid.c", "fill_grid") == "fallback"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert project_route(elsewhere / "f.c", "f") is None


# ---------------------------------------------------------------------------- through the verifier


def test_verify_source_uses_the_project_when_the_config_names_the_function(project: Path) -> None:
    from perfalign.server.verify._verifier import verify_source

    source = project / "grid.c"
    verdict = verify_source(source.read_text(), "c", "column_sums", ROW_ORDER, settings=Settings(), source_path=source)
    assert verdict.path == "project"
    assert verdict.status is Status.FASTER, verdict.detail


def test_verify_source_falls_back_when_the_harness_cannot_drive_the_function(project: Path) -> None:
    from perfalign.server.verify._verifier import verify_source

    config = project / "perfalign.toml"
    config.write_text(config.read_text().replace('functions = ["column_sums"]\n', ""))
    source = project / "grid.c"
    wrong = ROW_ORDER.replace("sums[j] = 0.0;", "sums[j] = 1.0;")
    verdict = verify_source(source.read_text(), "c", "column_sums", wrong, settings=Settings(), source_path=source)
    assert verdict.path == "project"
    assert verdict.status is Status.INCORRECT


def test_verify_source_without_a_project_keeps_the_harness(tmp_path: Path) -> None:
    from perfalign.server.verify._verifier import verify_source

    source = tmp_path / "lone.c"
    source.write_text("int counter;\nvoid bump(void) { counter++; }\n")
    verdict = verify_source(source.read_text(), "c", "bump", "void bump(void) { counter += 1; }",
                            settings=Settings(), source_path=source)
    assert verdict.path == "harness"


def test_function_verifier_serves_several_candidates_through_the_project(project: Path) -> None:
    from perfalign.server.verify._verifier import FunctionVerifier

    source = project / "grid.c"
    with FunctionVerifier(source.read_text(), "c", "column_sums", settings=Settings(), source_path=source) as verifier:
        assert verifier.prepare() is None
        wrong = verifier.verify(ROW_ORDER.replace("sums[j] = 0.0;", "sums[j] = 1.0;"))
        unsafe = verifier.verify('void column_sums(void) { remove("grid.c"); }')
    assert (wrong.path, wrong.status) == ("project", Status.INCORRECT)
    assert (unsafe.path, unsafe.status) == ("project", Status.REJECTED_UNSAFE)
