"""Under PERFALIGN_REQUIRE_ALL=1 (make test, CI) a safety test whose piece is missing fails instead of skipping.

The pieces are taken away the way a fresh machine lacks them: a PATH without
clang (so no ThreadSanitizer, libomp or Archer) and without bubblewrap.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

SAFETY_TESTS = [
    # ThreadSanitizer, clang, libomp and Archer: the race tests.
    ("tests/verify/test_race.py", "clang with libomp and Archer not installed"),
    # bubblewrap: the sandbox's own tests in their bubblewrap variant.
    ("tests/verify/test_sandbox.py::test_background_process_does_not_outlive_the_run[bubblewrap]",
     "bubblewrap unusable here"),
]


def run_tests(target: str, tmp_path: Path, require_all: bool) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PERFALIGN_REQUIRE_ALL"}
    env["PATH"] = str(tmp_path)  # nothing on it: no clang, no bwrap
    env["PERFALIGN_HOME"] = str(tmp_path / "home")
    if require_all:
        env["PERFALIGN_REQUIRE_ALL"] = "1"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", target],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.parametrize("target, reason", SAFETY_TESTS, ids=["race", "bubblewrap"])
def test_a_missing_safety_piece_fails_the_run_under_require_all(target: str, reason: str, tmp_path: Path) -> None:
    relaxed = run_tests(target, tmp_path, require_all=False)
    assert relaxed.returncode == 0, relaxed.stdout[-2000:]
    assert "skipped" in relaxed.stdout and reason in relaxed.stdout
    strict = run_tests(target, tmp_path, require_all=True)
    assert strict.returncode == 1, strict.stdout[-2000:]
    assert re.search(r"\d+ (failed|errors?)\b", strict.stdout) and "PERFALIGN_REQUIRE_ALL=1" in strict.stdout
    assert reason in strict.stdout
