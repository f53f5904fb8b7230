"""`perfalign verify`: one JSON document with --json, readable text otherwise, one-line usage errors."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from perfalign.server.cli._main import main

CASES = Path(__file__).resolve().parents[1] / "cases"
ORIGINAL = str(CASES / "prefix" / "original.c")


def run(*args: str) -> "object":
    return CliRunner().invoke(main, ["verify", *args], catch_exceptions=False)


def test_json_is_one_document_with_the_verdict_fields() -> None:
    result = run(ORIGINAL, "--function", "prefix_sums", "--candidate", str(CASES / "prefix" / "good_linear.c"), "--json")
    assert result.exit_code == 0, result.output
    verdict = json.loads(result.stdout)
    for key in ("status", "speedup", "ci95", "p_value", "baseline_ms", "candidate_ms", "threads", "problem_size", "detail"):
        assert key in verdict
    assert verdict["status"] == "faster"
    assert verdict["ci95"][0] <= verdict["speedup"] <= verdict["ci95"][1]
    assert verdict["threads"] == 1 and verdict["mode"] == "serial"
    # A faster verdict on a function whose work grows with the size carries its timings at several sizes.
    sizes = [p["size"] for p in verdict["scaling"]["sizes"]]
    assert len(sizes) >= 3 and verdict["problem_size"] in sizes
    assert set(verdict["scaling"]["growth"]) == {"baseline", "candidate"}


def test_a_rejected_candidate_still_exits_zero_with_its_reason() -> None:
    result = run(ORIGINAL, "-f", "prefix_sums", "-c", str(CASES / "prefix" / "wrong_off_by_one.c"))
    assert result.exit_code == 0
    assert result.stdout.startswith("incorrect")
    assert "'out'" in result.stdout
    assert "flags -O3" in result.stdout  # every verdict says which flags it was built at


def test_the_text_names_the_flags_the_sessions_and_the_compiler_alone() -> None:
    result = run(ORIGINAL, "-f", "prefix_sums", "-c", str(CASES / "prefix" / "good_linear.c"))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("faster")
    lines = result.stdout.splitlines()
    assert any(line.split()[:2] == ["flags", "-O3"] for line in lines), result.stdout
    assert any(line.startswith("compiler alone") for line in lines), result.stdout
    assert sum(line.startswith("session ") for line in lines) >= 2, result.stdout
    assert any(line.startswith("scaling") for line in lines), result.stdout
    text = " ".join(" ".join(lines).split())  # the table wraps long cells
    assert "at n = " in text.split("scaling", 1)[1], result.stdout
    assert "compiler alone (-O3" in text.split("scaling", 1)[1], result.stdout  # beside the growth
    assert sum(line.lstrip().startswith("n = ") for line in lines) >= 3, result.stdout


def test_openmp_mode_reports_threads() -> None:
    result = run(str(CASES / "omp" / "original.c"), "-f", "weighted_sum", "-c", str(CASES / "omp" / "wrong_racy.c"),
                 "--mode", "openmp", "--threads", "2", "--json")
    verdict = json.loads(result.stdout)
    assert verdict["status"] == "incorrect" and verdict["threads"] == 2 and verdict["mode"] == "openmp"


def test_usage_errors_are_one_line_and_nonzero(tmp_path: Path) -> None:
    missing = run(str(tmp_path / "nope.c"), "-f", "f", "-c", ORIGINAL)
    assert missing.exit_code != 0
    assert "does not exist" in missing.output and "Traceback" not in missing.output
    no_candidate = run(ORIGINAL, "-f", "prefix_sums", "-c", str(tmp_path / "none.c"))
    assert no_candidate.exit_code != 0 and "does not exist" in no_candidate.output
    no_function = run(ORIGINAL, "-c", ORIGINAL)
    assert no_function.exit_code != 0


def test_unknown_function_is_a_verdict_not_a_crash() -> None:
    result = run(ORIGINAL, "-f", "nope", "-c", ORIGINAL, "--json")
    assert result.exit_code == 0
    verdict = json.loads(result.stdout)
    assert verdict["status"] == "unsupported" and "prefix_sums" in verdict["detail"]


def test_installed_command_prints_only_json_on_stdout() -> None:
    exe = Path(sys.executable).with_name("perfalign")
    proc = subprocess.run(
        [str(exe), "verify", ORIGINAL, "-f", "prefix_sums", "-c", str(CASES / "bad" / "signature_changed.c"), "--json"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["status"] == "compile_error"
    assert "Traceback" not in proc.stderr
