"""The real ``perfalign`` command given paths that are not source files: refused at once, in one line."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PERFALIGN = str(Path(sys.executable).parent / "perfalign")
ORIGINAL = Path(__file__).resolve().parents[1] / "cases" / "prefix" / "original.c"


def perfalign(*args: str | Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PERFALIGN_HOME": str(home)}
    return subprocess.run([PERFALIGN, *map(str, args)], capture_output=True, text=True, timeout=60, env=env,
                          check=False)


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.c"
    os.mkfifo(path)
    return path


def test_verify_refuses_a_named_pipe_as_file_or_candidate(tmp_path: Path, fifo: Path) -> None:
    as_file = perfalign("verify", fifo, "-f", "prefix_sums", "-c", ORIGINAL, home=tmp_path)
    assert as_file.returncode == 2
    assert f"file {fifo} is not a regular file (it is a named pipe)" in as_file.stderr
    as_candidate = perfalign("verify", ORIGINAL, "-f", "prefix_sums", "-c", fifo, home=tmp_path)
    assert as_candidate.returncode == 2
    assert f"candidate {fifo} is not a regular file (it is a named pipe)" in as_candidate.stderr
    assert "Traceback" not in as_file.stderr + as_candidate.stderr


def test_verify_refuses_devices_kernel_files_and_huge_files(tmp_path: Path) -> None:
    huge = tmp_path / "huge.c"
    with huge.open("wb") as fh:
        fh.truncate(6 * 2**30)
    for path, said in ((Path("/dev/zero"), "it is a device"), (Path("/proc/kmsg"), "it is in /proc"),
                       (huge, "is 6442.5 MB; perfalign reads source files up to 12 MB")):
        result = perfalign("verify", ORIGINAL, "-f", "prefix_sums", "-c", path, home=tmp_path)
        assert result.returncode == 2, result.stderr
        assert said in result.stderr, result.stderr


def test_optimize_refuses_a_named_pipe(tmp_path: Path, fifo: Path) -> None:
    result = perfalign("optimize", fifo, "--function", "f", home=tmp_path)
    assert result.returncode == 2
    assert "is not a regular file (it is a named pipe)" in result.stderr
